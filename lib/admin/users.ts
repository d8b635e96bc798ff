import { z } from 'zod';
import { db, type Tx } from '@/lib/db';
import { append } from '@/lib/audit';
import { ROLES, auditActor, authorize, isRole, isTeamScoped, type Principal } from '@/lib/auth';
import { hashPassword } from '@/lib/auth/password';
import { AppError, unprocessable } from '@/lib/errors';
import { systemClock, type Clock } from '@/lib/clock';
import { dateTime, listOf } from '@/lib/wire';

export const userInput = z.object({
  email: z.string().trim().toLowerCase().email().max(320),
  name: z.string().trim().max(200).optional(),
  role: z.enum(ROLES),
  team: z.string().trim().min(1).optional(), // team name or id
  password: z.string().min(8).max(1024).optional(),
});

async function resolveTeamId(tx: Tx, team: string | undefined | null): Promise<string | null> {
  if (!team) return null;
  const isUuid = /^[0-9a-f-]{36}$/i.test(team);
  const t = await tx.team.findFirst({ where: isUuid ? { OR: [{ id: team }, { name: team }] } : { name: team } });
  if (!t) throw unprocessable(`No team "${team}"`, { field: 'team' });
  return t.id;
}

function teamRequired(role: string, teamId: string | null) {
  // Team-scoped roles see nothing without a team (docs/design.md "Roles and permissions"), so
  // refuse that state.
  if (isRole(role) && isTeamScoped(role) && !teamId) {
    throw unprocessable(`A ${role} must belong to a team`, { field: 'team' });
  }
}

export async function createUser(actor: Principal, input: z.input<typeof userInput>, clock: Clock = systemClock) {
  authorize(actor, 'admin.manage');
  const data = userInput.parse(input);
  const passwordHash = data.password ? await hashPassword(data.password) : null;
  return db().$transaction((tx) => insertUser(tx, actor, data, passwordHash, clock));
}

async function insertUser(
  tx: Tx,
  actor: Principal,
  data: z.infer<typeof userInput>,
  passwordHash: string | null,
  clock: Clock,
  audited: Record<string, unknown> = {},
) {
  if (await tx.user.findUnique({ where: { email: data.email } })) {
    throw new AppError('conflict', `A user with e-mail ${data.email} already exists`);
  }
  const teamId = await resolveTeamId(tx, data.team);
  teamRequired(data.role, teamId);
  const user = await tx.user.create({ data: { email: data.email, name: data.name, role: data.role, teamId, passwordHash } });
  await append(
    tx,
    {
      actor: auditActor(actor),
      action: 'user.create',
      targetType: 'user',
      targetId: user.id,
      teamId,
      after: { email: user.email, role: user.role, teamId, ...audited },
    },
    clock,
  );
  return user;
}

// Serialises bootstraps: two at once must not both find no admin (distinct from the audit lock).
const BOOTSTRAP_LOCK_KEY = 7_201_000_002;

/**
 * A deployment's first admin (`triage admin bootstrap`), only while there is no admin at all:
 * a disabled one counts (re-enable it instead), so the command cannot add admins to a running
 * instance. Audited as user.create with `bootstrap: true`.
 */
export async function bootstrapAdmin(actor: Principal, input: { email: string; password: string }, clock: Clock = systemClock) {
  authorize(actor, 'admin.manage');
  const data = userInput.parse({ ...input, role: 'admin' });
  const passwordHash = await hashPassword(data.password!);
  return db().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK_KEY}::bigint)`;
    const existing = await tx.user.findFirst({ where: { role: 'admin' }, orderBy: { createdAt: 'asc' }, select: { email: true, disabled: true } });
    if (existing) {
      const hint = existing.disabled ? ` (disabled: \`triage user update --email ${existing.email} --disabled false\` re-enables it)` : '';
      throw new AppError('conflict', `An admin already exists: ${existing.email}${hint}. Bootstrap makes only the first one; admins add the others.`);
    }
    return insertUser(tx, actor, data, passwordHash, clock, { bootstrap: true });
  });
}

export const userUpdate = z.object({
  role: z.enum(ROLES).optional(),
  team: z.string().trim().min(1).nullable().optional(),
  disabled: z.boolean().optional(),
  password: z.string().min(8).max(1024).optional(),
});

export async function updateUser(actor: Principal, userId: string, input: z.input<typeof userUpdate>) {
  authorize(actor, 'admin.manage');
  const patch = userUpdate.parse(input);
  if (!z.string().uuid().safeParse(userId).success) throw new AppError('not_found', 'No such user');
  const passwordHash = patch.password ? await hashPassword(patch.password) : undefined;
  return db().$transaction(async (tx) => {
    const before = await tx.user.findUnique({ where: { id: userId } });
    if (!before) throw new AppError('not_found', 'No such user');
    const teamId = patch.team === undefined ? before.teamId : await resolveTeamId(tx, patch.team);
    const role = patch.role ?? before.role;
    teamRequired(role, teamId);
    const user = await tx.user.update({ where: { id: userId }, data: { role, teamId, disabled: patch.disabled, passwordHash } });
    // Disabling ends every open session at once, not at cookie expiry. A password change or a re-enable
    // also ends the personal API tokens: whoever had the old password, or the account before it was
    // disabled, may hold either.
    const now = new Date();
    const reenabled = patch.disabled === false && before.disabled;
    let revoked: { sessions: number; tokens: number } | undefined;
    if (patch.disabled || passwordHash || reenabled) {
      const sessions = await tx.userSession.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now } });
      const tokens =
        passwordHash || reenabled
          ? await tx.apiToken.updateMany({ where: { userId, kind: 'personal', revokedAt: null }, data: { revokedAt: now } })
          : { count: 0 };
      revoked = { sessions: sessions.count, tokens: tokens.count };
    }
    await append(tx, {
      actor: auditActor(actor),
      action: patch.disabled === true ? 'user.disable' : patch.disabled === false ? 'user.enable' : 'user.update',
      targetType: 'user',
      targetId: user.id,
      teamId,
      before: { role: before.role, teamId: before.teamId, disabled: before.disabled },
      after: {
        role: user.role,
        teamId: user.teamId,
        disabled: user.disabled,
        ...(passwordHash ? { password: 'changed' } : {}),
        ...(revoked ? { revoked } : {}),
      },
    });
    return user;
  });
}

export const UserView = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string().nullable(),
  role: z.enum(ROLES),
  teamId: z.uuid().nullable(),
  team: z.string().nullable().describe("The team's name; auditors and admins may have none"),
  disabled: z.boolean(),
  createdAt: dateTime,
  updatedAt: dateTime,
});
export type UserView = z.infer<typeof UserView>;
export const UserListView = listOf('users', UserView);
/** POST /api/v1/users. */
export const CreatedUserView = z.object({ id: z.uuid(), email: z.string(), role: z.enum(ROLES), teamId: z.uuid().nullable() });

// The view's columns only: the password hash is never read for a list.
const USER_COLUMNS = { id: true, email: true, name: true, role: true, teamId: true, disabled: true, createdAt: true, updatedAt: true } as const;

/** Every user, by e-mail, with the team's name (the admin page). */
export function listUsers() {
  return db().user.findMany({ orderBy: { email: 'asc' }, select: { ...USER_COLUMNS, team: { select: { name: true } } } });
}

/** GET /api/v1/users. */
export async function listUserViews(): Promise<z.infer<typeof UserListView>> {
  const users = await listUsers();
  return { users: users.map(({ team, ...u }) => ({ ...u, team: team?.name ?? null })) };
}

export async function findUserByEmail(email: string) {
  return db().user.findUnique({ where: { email: email.trim().toLowerCase() } });
}
