// Who is asking. The role and team are read from the database on every request, so a demotion
// or a disabled account applies on the next request, whatever the session cookie says.
import { db } from '@/lib/db';
import { AppError, forbidden } from '@/lib/errors';
import type { AuditActor } from '@/lib/audit';
import { log } from '@/lib/log';
import { ASSISTANT_SCOPE, hashToken } from './tokens';
import { isRole, NEVER_FOR_ASSISTANT, scopeFor, type Permission, type Role, type Scope } from './permissions';

export interface Actor {
  userId: string;
  email: string;
  role: Role;
  teamId: string | null;
  /**
   * 'rule': a redrive rule acting for its author (lib/redrive-rules). 'assistant': a personal token
   * with the assistant scope, the user's MCP assistant (lib/assistant): audited "via assistant",
   * never an approver, never the one to confirm an outage is over.
   */
  via: 'session' | 'token' | 'rule' | 'assistant';
  sessionId?: string;
  /** Through a personal token: who minted it (an admin, for someone else), for four eyes. */
  tokenMintedById?: string;
}

/** The CLI and the workers act as the system: every permission, audited as "system". */
export interface SystemPrincipal {
  system: true;
  label?: string;
}
export type Principal = Actor | SystemPrincipal;
export const SYSTEM: SystemPrincipal = { system: true };

export function isSystem(p: Principal): p is SystemPrincipal {
  return 'system' in p;
}

export function auditActor(p: Principal): AuditActor {
  if (isSystem(p)) return { userId: null, email: p.label ?? 'system', role: 'system' };
  return { userId: p.userId, email: p.email, role: p.role, ...(p.via === 'assistant' ? { via: 'assistant' as const } : {}) };
}

/** Whether the principal is a person's MCP assistant (a token with the assistant scope). */
export function isAssistant(p: Principal): boolean {
  return !isSystem(p) && p.via === 'assistant';
}

export async function actorFromSession(userId: string, sessionId: string): Promise<Actor | undefined> {
  const s = await db().userSession.findUnique({
    where: { id: sessionId },
    select: { userId: true, revokedAt: true, expiresAt: true, user: { select: { email: true, role: true, teamId: true, disabled: true } } },
  });
  if (!s || s.userId !== userId || s.revokedAt || s.expiresAt < new Date() || s.user.disabled) return undefined;
  if (!isRole(s.user.role)) return undefined;
  return { userId, email: s.user.email, role: s.user.role, teamId: s.user.teamId, via: 'session', sessionId };
}

export async function actorFromPersonalToken(token: string): Promise<Actor | undefined> {
  const t = await db().apiToken.findUnique({
    where: { tokenHash: hashToken(token) },
    select: {
      id: true,
      kind: true,
      revokedAt: true,
      createdById: true,
      scopes: true,
      user: { select: { id: true, email: true, role: true, teamId: true, disabled: true } },
    },
  });
  if (t?.kind !== 'personal' || t.revokedAt || !t.user || t.user.disabled || !isRole(t.user.role)) return undefined;
  const minted = t.createdById && t.createdById !== t.user.id ? { tokenMintedById: t.createdById } : {};
  // A token minted for the assistant is the assistant's on every door, the REST API included.
  const via = t.scopes.includes(ASSISTANT_SCOPE) ? 'assistant' : 'token';
  return { userId: t.user.id, email: t.user.email, role: t.user.role, teamId: t.user.teamId, via, ...minted };
}

/** Throws 403 unless the actor's role has the permission; returns its scope. */
export function authorize(actor: Principal, permission: Permission): Scope {
  if (isSystem(actor)) return 'all';
  if (actor.via === 'assistant' && NEVER_FOR_ASSISTANT.has(permission)) {
    throw forbidden(
      permission === 'redrive.approve'
        ? 'Four eyes: an assistant never approves; a person approves in Triage with their own sign-in or token'
        : 'Masked values: an assistant never reveals them; a person reveals in Triage, with a reason',
    );
  }
  const scope = scopeFor(actor.role, permission);
  if (!scope) {
    log.warn({ userId: actor.userId, role: actor.role, permission }, 'permission denied');
    throw forbidden();
  }
  if (scope === 'team' && !actor.teamId) throw forbidden('Your account belongs to no team');
  return scope;
}

/**
 * Authorization in the query (docs/style.md pattern 3): the `where` that limits sources to what the
 * actor may see for this permission. Another team's row then simply does not exist: 404.
 */
export function sourceScope(actor: Principal, permission: Permission): { teamId?: string } {
  if (authorize(actor, permission) === 'all' || isSystem(actor)) return {};
  return { teamId: actor.teamId! };
}

export function unauthorized(): AppError {
  return new AppError('unauthorized', 'Sign in or send a valid API token');
}
