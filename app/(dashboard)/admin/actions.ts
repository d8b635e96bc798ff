'use server';
// Admin server actions: guard, then the same lib/ functions the CLI uses.
import { revalidatePath } from 'next/cache';
import { ZodError } from 'zod';
import { actionActor } from '@/lib/auth/guard';
import { createTeam } from '@/lib/admin/teams';
import { createUser, updateUser } from '@/lib/admin/users';
import { createIngestToken, createPersonalToken, revokeToken } from '@/lib/admin/tokens';
import { isConnectorKind } from '@/lib/connectors/types';
import { createSource } from '@/lib/sources/create-source';
import { updateSourceConnection } from '@/lib/sources/update-connection';
import { AppError } from '@/lib/errors';
import { connectionFromForm } from './connection-kinds';

export interface AdminState {
  ok?: string;
  error?: string;
  token?: string;
  /** Where to go next (a new connector source's page, to test its connection). */
  href?: string;
}

const str = (f: FormData, k: string) => {
  const v = f.get(k);
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
};

async function run(fn: () => Promise<string | { ok: string; token?: string; href?: string }>): Promise<AdminState> {
  try {
    const r = await fn();
    revalidatePath('/admin');
    return typeof r === 'string' ? { ok: r } : r;
  } catch (e) {
    if (e instanceof AppError) return { error: e.message };
    if (e instanceof ZodError) return { error: e.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ') };
    throw e;
  }
}

export async function createTeamAction(_: AdminState, f: FormData) {
  return run(async () => {
    const actor = await actionActor('admin.manage');
    const t = await createTeam(actor, { name: str(f, 'name') ?? '' });
    return `Team ${t.name} created`;
  });
}

export async function createUserAction(_: AdminState, f: FormData) {
  return run(async () => {
    const actor = await actionActor('admin.manage');
    const u = await createUser(actor, { email: str(f, 'email') ?? '', role: str(f, 'role') as never, team: str(f, 'team'), password: str(f, 'password') });
    return `User ${u.email} created`;
  });
}

export async function updateUserAction(_: AdminState, f: FormData) {
  return run(async () => {
    const actor = await actionActor('admin.manage');
    const disabled = str(f, 'disabled');
    const u = await updateUser(actor, str(f, 'userId') ?? '', {
      role: str(f, 'role') as never,
      team: str(f, 'team'),
      disabled: disabled === undefined ? undefined : disabled === 'true',
    });
    return `User ${u.email} updated`;
  });
}

export async function createSourceAction(_: AdminState, f: FormData) {
  return run(async () => {
    const actor = await actionActor('admin.manage');
    const kind = str(f, 'kind') ?? 'builtin';
    const connection = isConnectorKind(kind) ? connectionFromForm(kind, f, 'create') : {};
    const s = await createSource(actor, { name: str(f, 'name') ?? '', team: str(f, 'team') ?? '', kind: kind as never, ...connection });
    return isConnectorKind(kind) ? { ok: `Source ${s.name} created`, href: `/sources/${encodeURIComponent(s.name)}` } : `Source ${s.name} created`;
  });
}

export async function updateConnectionAction(_: AdminState, f: FormData) {
  return run(async () => {
    const actor = await actionActor('admin.manage');
    const source = str(f, 'source') ?? '';
    const kind = str(f, 'kind') ?? '';
    if (!isConnectorKind(kind)) throw new AppError('unprocessable', 'Not a connector source');
    const { source: s, changed } = await updateSourceConnection(actor, source, { ...connectionFromForm(kind, f, 'patch'), description: str(f, 'description') ?? null });
    revalidatePath(`/sources/${encodeURIComponent(s.name)}`);
    revalidatePath(`/admin/sources/${encodeURIComponent(s.name)}`);
    return changed ? `Connection of ${s.name} saved` : 'Nothing changed';
  });
}

export async function createTokenAction(_: AdminState, f: FormData) {
  return run(async () => {
    const actor = await actionActor('admin.manage');
    const source = str(f, 'source');
    const user = str(f, 'user');
    const t = source ? await createIngestToken(actor, source) : await createPersonalToken(actor, user ?? '');
    return { ok: 'Token created. Copy it now: it is not shown again.', token: t.token };
  });
}

export async function revokeTokenAction(_: AdminState, f: FormData) {
  return run(async () => {
    const actor = await actionActor('admin.manage');
    await revokeToken(actor, str(f, 'tokenId') ?? '');
    return 'Token revoked';
  });
}
