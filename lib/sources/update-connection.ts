// Change a connector source's connection (admin): its settings (queue, target queue, management URL,
// error-text mapping…) and, when given, replacement credentials. Settings are merged into what is
// stored (a null removes one) and checked whole by the connector's schema; secret fields not given
// keep their stored value, so a form never has to show one to keep it. Audited with the changed
// settings and the credentials redacted. The connectors worker restarts the import on its next
// read of the sources (the row's updated_at changed).
import { z } from 'zod';
import { db } from '@/lib/db';
import { append } from '@/lib/audit';
import { auditActor, authorize, type Principal } from '@/lib/auth';
import { isConnectorKind } from '@/lib/connectors/types';
import { decryptSecret, encryptSecret } from '@/lib/connectors/secrets';
import { unprocessable } from '@/lib/errors';
import { findSource } from '@/lib/model/find-source';
import { connectionOf, redactedSecret } from './create-source';

export const connectionPatch = z
  .object({
    /** Settings to change; a null removes an optional one. Left-out settings stay as they are. */
    connection: z.record(z.string(), z.unknown()).optional(),
    /** Secret fields to replace (e.g. { url }); left-out ones are kept. */
    secret: z.record(z.string(), z.string().min(1)).optional(),
    description: z.string().max(500).nullable().optional(),
  })
  .strict();
export type ConnectionPatch = z.input<typeof connectionPatch>;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export async function updateSourceConnection(actor: Principal, sourceRef: string, input: ConnectionPatch) {
  authorize(actor, 'admin.manage');
  const patch = connectionPatch.parse(input);
  if (!patch.connection && !patch.secret && patch.description === undefined) throw unprocessable('Nothing to change');
  return db().$transaction(async (tx) => {
    const before = await findSource(actor, sourceRef, 'admin.manage', tx);
    if (!isConnectorKind(before.kind) && (patch.connection || patch.secret)) {
      throw unprocessable(`A ${before.kind} source takes no connection settings`, { field: 'connection' });
    }
    const stored = (before.connection ?? {}) as Record<string, unknown>;
    const merged: Record<string, unknown> = { ...stored };
    for (const [k, v] of Object.entries(patch.connection ?? {})) {
      if (v === null) delete merged[k];
      else merged[k] = v;
    }
    const storedSecret = before.connectionSecret ? decryptSecret(before.connectionSecret) : {};
    const secretIn = { ...storedSecret, ...(patch.secret ?? {}) };
    const data: { connection?: object; connectionSecret?: Uint8Array<ArrayBuffer>; description?: string | null } = {};
    const changedBefore: Record<string, unknown> = {};
    const changedAfter: Record<string, unknown> = {};
    if (isConnectorKind(before.kind)) {
      const { connection, secret } = connectionOf(before.kind, merged, secretIn);
      const settingsBefore: Record<string, unknown> = {};
      const settingsAfter: Record<string, unknown> = {};
      const after = connection as Record<string, unknown>;
      for (const k of new Set([...Object.keys(stored), ...Object.keys(after)])) {
        if (!same(stored[k], after[k])) {
          settingsBefore[k] = stored[k] ?? null;
          settingsAfter[k] = after[k] ?? null;
        }
      }
      if (Object.keys(settingsAfter).length) {
        data.connection = connection;
        changedBefore.connection = settingsBefore;
        changedAfter.connection = settingsAfter;
      }
      const replaced = Object.keys(patch.secret ?? {}).filter((k) => storedSecret[k] !== secret![k]);
      if (replaced.length) {
        data.connectionSecret = new Uint8Array(encryptSecret(secret!));
        const pick = (s: Record<string, string>) => Object.fromEntries(replaced.filter((k) => k in s).map((k) => [k, s[k]!]));
        changedBefore.secret = redactedSecret(pick(storedSecret));
        changedAfter.secret = redactedSecret(pick(secret!));
      }
    }
    if (patch.description !== undefined && patch.description !== before.description) {
      data.description = patch.description;
      changedBefore.description = before.description;
      changedAfter.description = patch.description;
    }
    if (Object.keys(data).length === 0) return { source: before, changed: false };
    const source = await tx.source.update({ where: { id: before.id }, data, include: { team: { select: { name: true } } } });
    await append(tx, {
      actor: auditActor(actor),
      action: 'source.connection.update',
      targetType: 'source',
      targetId: source.id,
      sourceId: source.id,
      teamId: source.teamId,
      before: changedBefore,
      after: changedAfter,
    });
    return { source, changed: true };
  });
}
