// Streamed export of the trail (CSV or NDJSON): keyset batches pulled as the client reads, so a
// million events export with flat memory. The export is itself audited, before the first byte, and
// covers the trail up to just before its own event.
import { z } from 'zod';
import { db } from '@/lib/db';
import { auditActor, type Principal } from '@/lib/auth';
import { csvRow } from '@/lib/export/csv';
import { append } from '@/lib/audit/append';
import { AppError } from '@/lib/errors';
import { auditFilterSchema, auditFilterToSearch, auditTeamScope, auditWhere, type AuditFilter } from './filter';
import { AUDIT_EXPORT_COLUMNS, auditEventViews, type AuditEventView } from '@/lib/audit-trail/present';

export const AUDIT_EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type AuditExportFormat = (typeof AUDIT_EXPORT_FORMATS)[number];

const isFormat = (f: string): f is AuditExportFormat => (AUDIT_EXPORT_FORMATS as readonly string[]).includes(f);

/**
 * GET /api/v1/audit/export's query string. An unknown format is a 400 (thrown from the transform, so
 * zod does not turn it into a 422), checked before the filter: format is the first key.
 */
export const auditExportQuery = z.object({
  format: z
    .string()
    .default('csv')
    .describe('Output format: csv or ndjson')
    .transform((f) => {
      if (!isFormat(f)) throw new AppError('bad_request', 'format must be csv or ndjson');
      return f;
    }),
  ...auditFilterSchema.shape,
});

const BATCH = 1000;

export interface AuditExport {
  body: ReadableStream<Uint8Array>;
  contentType: string;
  filename: string;
  /** The export's own audit event. */
  eventId: bigint;
}

function line(format: AuditExportFormat, v: AuditEventView): string {
  return format === 'csv' ? csvRow(AUDIT_EXPORT_COLUMNS.map((c) => v[c])) : `${JSON.stringify(v)}\n`;
}

export async function exportAuditEvents(actor: Principal, filter: AuditFilter, format: AuditExportFormat): Promise<AuditExport> {
  const where = await auditWhere(actor, filter);
  const { id: eventId } = await db().$transaction((tx) =>
    append(tx, {
      actor: auditActor(actor),
      action: 'audit.export',
      teamId: auditTeamScope(actor) ?? null,
      selection: { format, filter: Object.fromEntries(auditFilterToSearch(filter)) },
    }),
  );
  const encoder = new TextEncoder();
  let before = eventId;
  let started = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started && format === 'csv') {
        started = true;
        controller.enqueue(encoder.encode(csvRow(AUDIT_EXPORT_COLUMNS)));
        return;
      }
      const rows = await db().auditEvent.findMany({ where: { AND: [where, { id: { lt: before } }] }, orderBy: { id: 'desc' }, take: BATCH });
      if (rows.length === 0) {
        controller.close();
        return;
      }
      before = rows[rows.length - 1]!.id;
      controller.enqueue(encoder.encode((await auditEventViews(rows)).map((v) => line(format, v)).join('')));
      if (rows.length < BATCH) controller.close();
    },
  });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return {
    body,
    contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
    filename: `audit-${stamp}.${format}`,
    eventId,
  };
}
