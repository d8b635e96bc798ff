'use server';
// Admin server actions: the action client (guard, form, errors), then the same lib/ functions the CLI uses.
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { action, form, type ActionContext, type ActionReply } from '@/lib/auth/action';
import { ROLES, type Role } from '@/lib/auth/permissions';
import { setAssistantRoles } from '@/lib/auth/assistant-access';
import { createTeam } from '@/lib/admin/teams';
import { createUser, updateUser } from '@/lib/admin/users';
import { createIngestToken, createPersonalToken, revokeToken } from '@/lib/admin/tokens';
import { isConnectorKind } from '@/lib/connectors/types';
import { createSource } from '@/lib/sources/create-source';
import { SOURCE_KINDS } from '@/lib/model/source-kind';
import { updateSourceConnection } from '@/lib/sources/update-connection';
import { AppError } from '@/lib/errors';
import { connectionFromForm } from './connection-kinds';

/** What the admin forms show besides the message. */
export interface AdminData {
  token?: string;
  /** Where to go next (a new connector source's page, to test its connection). */
  href?: string;
}

/** Every admin form: admin.manage, and the admin page shows the change. */
function adminAction<S extends z.ZodType<object>>(schema: S, fn: (input: z.output<S>, ctx: ActionContext) => Promise<ActionReply<AdminData>>) {
  return action<S, AdminData>('admin.manage', schema, async (input, ctx) => {
    const reply = await fn(input, ctx);
    revalidatePath('/admin');
    return reply;
  });
}

export const createTeamAction = adminAction(z.object({ name: form.text }), async (input, { actor }) => {
  const t = await createTeam(actor, input);
  return { message: `Team ${t.name} created` };
});

export const createUserAction = adminAction(
  z.object({ email: form.text, role: form.choice(ROLES), team: form.optional, password: form.optional }),
  async (input, { actor }) => {
    const u = await createUser(actor, input);
    return { message: `User ${u.email} created` };
  },
);

export const updateUserAction = adminAction(
  z.object({ userId: form.text, role: form.optionalChoice(ROLES), team: form.optional, disabled: form.optional }),
  async ({ userId, disabled, ...input }, { actor }) => {
    const u = await updateUser(actor, userId, { ...input, disabled: disabled === undefined ? undefined : disabled === 'true' });
    return { message: `User ${u.email} updated` };
  },
);

export const createSourceAction = adminAction(
  z.object({ name: form.text, team: form.text, kind: form.optionalChoice(SOURCE_KINDS).transform((k) => k ?? 'builtin') }),
  async (input, { actor, form: f }) => {
    const connection = isConnectorKind(input.kind) ? connectionFromForm(input.kind, f, 'create') : {};
    const s = await createSource(actor, { ...input, ...connection });
    const message = `Source ${s.name} created`;
    return isConnectorKind(input.kind) ? { message, href: `/sources/${encodeURIComponent(s.name)}` } : { message };
  },
);

export const updateConnectionAction = adminAction(
  z.object({ source: form.text, kind: form.text, description: form.optional }),
  async ({ source, kind, description }, { actor, form: f }) => {
    if (!isConnectorKind(kind)) throw new AppError('unprocessable', 'Not a connector source');
    const { source: s, changed } = await updateSourceConnection(actor, source, { ...connectionFromForm(kind, f, 'patch'), description: description ?? null });
    revalidatePath(`/sources/${encodeURIComponent(s.name)}`);
    revalidatePath(`/admin/sources/${encodeURIComponent(s.name)}`);
    return { message: changed ? `Connection of ${s.name} saved` : 'Nothing changed' };
  },
);

export const createTokenAction = adminAction(
  z.object({ source: form.optional, user: form.optional, assistant: form.checkbox }),
  async ({ source, user, assistant }, { actor }) => {
    const t = source
      ? await createIngestToken(actor, source)
      : await createPersonalToken(actor, user ?? '', undefined, { scopes: assistant ? ['assistant'] : [] });
    return { message: 'Token created. Copy it now: it is not shown again.', token: t.token };
  },
);

export const setAssistantRolesAction = adminAction(z.object({ roles: form.many }), async ({ roles }, { actor }) => {
  const allowed = await setAssistantRoles(actor, { roles: roles as Role[] });
  return { message: allowed.length ? `The assistant is allowed for: ${allowed.join(', ')}` : 'The assistant is allowed for no role' };
});

export const revokeTokenAction = adminAction(z.object({ tokenId: form.text }), async ({ tokenId }, { actor }) => {
  await revokeToken(actor, tokenId);
  return { message: 'Token revoked' };
});
