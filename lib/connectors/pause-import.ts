// Pause or resume a connector source's import (a lead of its team, or an admin), audited. The
// connectors worker sees the switch on its next read of the sources (CONNECTOR_DISCOVERY_MS) and
// stops the import loop after the batch in flight; messages stay on the broker meanwhile.
import { z } from 'zod';
import { db } from '@/lib/db';
import { append } from '@/lib/audit';
import { auditActor, authorize, type Principal } from '@/lib/auth';
import { unprocessable } from '@/lib/errors';
import { COMMAND_MAX_BYTES } from '@/lib/request-body';
import { findSource } from '@/lib/model/find-source';
import { isConnectorKind } from './types';

/** The body of POST …/import/pause and …/resume. */
export const importSwitchBody = z.object({ reason: z.string().trim().max(1000).optional() }).strict();

/** What POST …/import/pause and …/resume answer. */
export const ImportSwitchView = z.object({ id: z.uuid(), name: z.string(), importPaused: z.boolean(), changed: z.boolean().describe('false: it already was') });

export async function setImportPaused(actor: Principal, sourceRef: string, paused: boolean, reason?: string | null) {
  authorize(actor, 'sources.import');
  // Refused whole when too long, naming the field, rather than stored as sent.
  const { reason: checked } = importSwitchBody.parse(reason == null ? {} : { reason });
  reason = checked ?? null;
  return db().$transaction(async (tx) => {
    const before = await findSource(actor, sourceRef, 'sources.import', tx);
    if (!isConnectorKind(before.kind)) throw unprocessable(`Source "${before.name}" is not a connector source: it has no import to pause`);
    if (before.importPaused === paused) return { id: before.id, name: before.name, importPaused: paused, changed: false };
    const source = await tx.source.update({ where: { id: before.id }, data: { importPaused: paused } });
    await append(tx, {
      actor: auditActor(actor),
      action: paused ? 'source.import.pause' : 'source.import.resume',
      targetType: 'source',
      targetId: source.id,
      sourceId: source.id,
      teamId: source.teamId,
      reason: reason ?? null,
      before: { importPaused: before.importPaused },
      after: { importPaused: paused },
    });
    return { id: source.id, name: source.name, importPaused: paused, changed: true };
  });
}

/** What the pause and resume routes' specs share (lib/auth/guard.ts RouteSpec): each adds its summary. */
export const importSwitchRoute = {
  tags: ['connectors'],
  responses: { 200: { description: 'The switch', view: ImportSwitchView } },
  errors: [400],
  params: z.object({ source: z.string() }),
  body: importSwitchBody,
  optionalBody: true,
  maxBytes: COMMAND_MAX_BYTES,
};

/** The pause and resume routes' handler (lib/auth/guard.ts familyRoute): set the switch, answer it. */
export function answerImportSwitch(paused: boolean) {
  return async ({ actor, params, body }: { actor: Principal; params: { source: string }; body: { reason?: string } }) =>
    Response.json(await setImportPaused(actor, params.source, paused, body.reason));
}
