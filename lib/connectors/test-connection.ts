// "Test connection" of a connector source (POST /api/v1/sources/:source/connection-test and the
// button on the source and admin pages): its connector's probe, bounded in time, with what it
// learnt (the queue exists, depth, consumers, arguments…) or a clear error. Never a credential in
// the answer: errors pass through scrubSecrets. A read of the broker, so nothing is audited.
import { z } from 'zod';
import { authorize, type Principal } from '@/lib/auth';
import { SOURCE_KINDS } from '@/lib/model/source-kind';
import { dateTime } from '@/lib/wire';
import { AppError, unprocessable } from '@/lib/errors';
import { findSource } from '@/lib/model/find-source';
import { connectorSourceOf } from './index';
import { scrubSecrets } from './secrets';
import { TrapView } from './traps';
import { isConnectorKind, type ProbeReport } from './types';

/** A probe that has not answered by then reports a timeout (a broker that swallows packets). */
export const PROBE_TIMEOUT_MS = 10_000;

export const ConnectionTestView = z.object({
  source: z.object({ id: z.uuid(), name: z.string(), kind: z.enum(SOURCE_KINDS) }),
  testedAt: dateTime,
  ok: z.boolean(),
  summary: z.string().describe('One line, e.g. "Queue \\"orders.dlq\\" exists: 12 messages, 0 consumers"'),
  facts: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .describe('exists, depth, consumers; with a management URL: arguments, bound exchanges'),
  error: z.string().optional(),
  warnings: z
    .array(z.string())
    .optional()
    .describe('What works but will hurt, in words: the warning traps and other cautions, e.g. SQS: a DLQ whose retention is not longer than its source queue'),
  traps: z.array(TrapView).optional().describe("The broker's dead-letter settings checked against the known traps, each with what to change"),
});
export type ConnectionTestResult = z.infer<typeof ConnectionTestView> & ProbeReport;

export async function testConnection(actor: Principal, sourceRef: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<ConnectionTestResult> {
  authorize(actor, 'sources.import');
  const row = await findSource(actor, sourceRef, 'sources.import');
  if (!isConnectorKind(row.kind)) throw unprocessable(`Source "${row.name}" is not a connector source: it has no broker connection to test`);
  const about = { source: { id: row.id, name: row.name, kind: row.kind }, testedAt: new Date() };
  let resolved;
  try {
    resolved = connectorSourceOf(row);
  } catch (e) {
    // No connector for the kind in this build, or settings that no longer parse: say so, plainly.
    if (e instanceof AppError) return { ...about, ok: false, summary: `Not available: ${e.message}`, facts: {}, error: e.message };
    throw e;
  }
  const { connector, source } = resolved;
  const signal = AbortSignal.timeout(timeoutMs);
  const timedOut = new Promise<ProbeReport>((resolve) =>
    signal.addEventListener('abort', () => {
      const error = `No answer from the broker within ${Math.round(timeoutMs / 1000)} s`;
      resolve({ ok: false, summary: error, facts: {}, error });
    }),
  );
  let report: ProbeReport;
  try {
    report = await Promise.race([connector.probe(source, signal), timedOut]);
  } catch (e) {
    // A probe must not throw; one that does still gets a clean answer, scrubbed of its secrets.
    const error = scrubSecrets(`The probe failed: ${e instanceof Error ? e.message : String(e)}`, source.secret);
    report = { ok: false, summary: error, facts: {}, error };
  }
  const scrub = (t: string) => scrubSecrets(t, source.secret);
  return {
    ...about,
    ok: report.ok,
    summary: scrub(report.summary),
    facts: Object.fromEntries(Object.entries(report.facts).map(([k, v]) => [k, typeof v === 'string' ? scrub(v) : v])),
    ...(report.error ? { error: scrub(report.error) } : {}),
    ...(report.warnings?.length ? { warnings: report.warnings.map(scrub) } : {}),
    ...(report.traps ? { traps: report.traps.map((t) => ({ ...t, message: scrub(t.message), fix: scrub(t.fix) })) } : {}),
  };
}
