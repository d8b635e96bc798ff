// A setting (one row of `settings`, by key) that a person changes: the write and its audit event,
// the value before and after under one name, in the caller's transaction.
import type { Tx } from '@/lib/db';
import type { Prisma } from '@/generated/prisma/client';
import { append, type AuditActor } from './append';

export async function writeSetting<T extends Prisma.InputJsonValue>(
  tx: Tx,
  change: { actor: AuditActor; action: string; key: string; name: string; before: T; after: T },
): Promise<void> {
  const { actor, action, key, name, before, after } = change;
  await tx.setting.upsert({ where: { key }, create: { key, value: after }, update: { value: after } });
  await append(tx, { actor, action, targetType: 'setting', targetId: key, before: { [name]: before }, after: { [name]: after } });
}
