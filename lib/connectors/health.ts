// The read side of connector_health (written by the supervisor, lib/connectors/supervisor.ts): what
// the source page, GET /api/v1/sources/:source and /api/metrics show of a connector's import.
import { z } from 'zod';
import { db } from '@/lib/db';
import { dateTime } from '@/lib/wire';
import { FRAMEWORK_ERROR_HEADERS, type ErrorTextMapping } from './error-text';

export const ConnectorHealthView = z.object({
  lastPollAt: dateTime.nullable().describe('Last time the import loop reported anything (a poll, a batch, a failure)'),
  lastSuccessAt: dateTime.nullable().describe('Last successful poll or committed batch'),
  importedTotal: z.int().describe('Dead letters imported since the source was created (new rows only; duplicates absorbed are not counted)'),
  lag: z.int().nullable().describe('Messages left on the broker (queue depth), when the broker tells'),
  lastError: z.string().nullable().describe('The last failure, in words (never a credential)'),
  lastErrorAt: dateTime.nullable(),
  consecutiveFailures: z.int().describe('Failed attempts since the last success; 0 while all is well'),
});
export type ConnectorHealthView = z.infer<typeof ConnectorHealthView>;

type HealthRow = {
  sourceId: string;
  lastPollAt: Date | null;
  lastSuccessAt: Date | null;
  importedTotal: bigint;
  lag: bigint | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  consecutiveFailures: number;
};

export function healthView(h: HealthRow): ConnectorHealthView {
  return {
    lastPollAt: h.lastPollAt,
    lastSuccessAt: h.lastSuccessAt,
    importedTotal: Number(h.importedTotal),
    lag: h.lag === null ? null : Number(h.lag),
    lastError: h.lastError,
    lastErrorAt: h.lastErrorAt,
    consecutiveFailures: h.consecutiveFailures,
  };
}

/** Health of these sources by id; a source whose import never ran has no entry. */
export async function connectorHealth(sourceIds: string[]): Promise<Map<string, ConnectorHealthView>> {
  if (sourceIds.length === 0) return new Map();
  const rows = await db().connectorHealth.findMany({ where: { sourceId: { in: sourceIds } } });
  return new Map(rows.map((r) => [r.sourceId, healthView(r)]));
}

export const ErrorTextStatus = z.object({
  mapped: z.boolean().describe('The source names where its error text lives (its own headers or JSON paths)'),
  seen: z.boolean().describe('Some dead letter of the source carried error text (framework headers, or the mapping)'),
  notice: z.string().nullable().describe('Set when neither holds: clusters can only tell dead letters apart by reason'),
});
export type ErrorTextStatus = z.infer<typeof ErrorTextStatus>;

/** Whether a connector source's dead letters will carry error text to cluster by. */
export async function errorTextStatus(sourceId: string, mapping: ErrorTextMapping | undefined): Promise<ErrorTextStatus> {
  const mapped = Object.values(mapping ?? {}).some((v) => typeof v === 'string' && v.trim() !== '');
  // An error type is looked up by index; a message without a type only among the latest arrivals,
  // so a page of a source with millions of reason-only dead letters stays one cheap read.
  const typed = await db().deadLetter.findFirst({ where: { sourceId, errorType: { not: null } }, select: { id: true } });
  const recent = typed
    ? []
    : await db().deadLetter.findMany({ where: { sourceId }, orderBy: { id: 'desc' }, take: 200, select: { errorMessage: true, errorStack: true } });
  const seen = typed !== null || recent.some((d) => d.errorMessage !== null || d.errorStack !== null);
  const notice =
    mapped || seen
      ? null
      : `No error-text mapping is configured and no framework headers (${FRAMEWORK_ERROR_HEADERS.slice(0, 3).join(', ')}, MassTransit MT-Fault-*, NServiceBus.ExceptionInfo.*) have been seen: clusters will group by reason only. Name the headers or JSON paths that carry the error in the connection settings.`;
  return { mapped, seen, notice };
}
