// Who may have an assistant: a personal token with the "assistant" scope, of a user whose role an
// admin allowed (a setting, audited). Checked on every door the token opens (the MCP endpoint and
// the REST API alike), so turning a role off stops its assistants at the next request.
import { z } from 'zod';
import { db, type Tx } from '@/lib/db';
import { writeSetting } from '@/lib/audit';
import { auditActor, authorize, isAssistant, ROLES, type Actor, type Principal, type Role } from '@/lib/auth';
import { actorFromPersonalToken, unauthorized } from '@/lib/auth/actor';
import { forbidden } from '@/lib/errors';

const ROLES_KEY = 'assistant.roles';

export const assistantRolesInput = z.object({
  roles: z.array(z.enum(ROLES)).max(ROLES.length).describe('The roles whose users may act through an MCP assistant; [] turns it off'),
});

/** The roles an admin allowed an assistant; none until one does. */
export async function assistantRoles(tx: Tx = db()): Promise<Role[]> {
  const row = await tx.setting.findUnique({ where: { key: ROLES_KEY } });
  const parsed = assistantRolesInput.shape.roles.safeParse(row?.value);
  return parsed.success ? parsed.data : [];
}

/** Allow the assistant for exactly these roles (admin), one audit event with before and after. */
export async function setAssistantRoles(actor: Principal, input: z.input<typeof assistantRolesInput>): Promise<Role[]> {
  authorize(actor, 'admin.manage');
  const roles = [...new Set(assistantRolesInput.parse(input).roles)].sort((a, b) => ROLES.indexOf(a) - ROLES.indexOf(b));
  return db().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${ROLES_KEY}))`;
    const before = await assistantRoles(tx);
    await writeSetting(tx, { actor: auditActor(actor), action: 'assistant.roles', key: ROLES_KEY, name: 'roles', before, after: roles });
    return roles;
  });
}

/** 403 when the actor is an assistant whose user's role is not allowed one. */
export async function assertAssistantAllowed(actor: Actor): Promise<void> {
  if (!isAssistant(actor)) return;
  const roles = await assistantRoles();
  if (!roles.includes(actor.role)) {
    throw forbidden(
      `The assistant is not allowed for the ${actor.role} role: an admin allows it (triage assistant allow --roles ${[...roles, actor.role].join(',')})`,
    );
  }
}

/**
 * The actor behind an MCP request or the stdio CLI: a personal token with the assistant scope (401
 * for no token or one that is not valid; 403, saying why, for a token without the scope or a role
 * the assistant is not allowed for).
 */
export async function assistantActor(token: string | undefined): Promise<Actor> {
  const actor = token ? await actorFromPersonalToken(token) : undefined;
  if (!actor) throw unauthorized();
  if (!isAssistant(actor)) {
    throw forbidden('This token has no assistant scope: an admin mints one for the assistant (triage token create --user E --scope assistant)');
  }
  await assertAssistantAllowed(actor);
  return actor;
}
