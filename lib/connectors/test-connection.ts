// "Test connection" of a connector source (POST /api/v1/sources/:source/connection-test and the
// button on the source and admin pages): its connector's probe, bounded in time, with what it
// learnt (the queue exists, depth, consumers, arguments…) or a clear error. Never a credential in
// the answer: errors pass through scrubSecrets. A read of the broker, so nothing is audited.
import { authorize, type Principal } from '@/lib/auth';
import { AppError, unprocessable } from '@/lib/errors';
import { findSource } from '@/lib/sources/find-source';
import { connectorSourceOf } from './index';
import { scrubSecrets } from './secrets';
import { isConnectorKind, type ProbeReport } from './types';

/** A probe that has not answered by then reports a timeout (a broker that swallows packets). */
export const PROBE_TIMEOUT_MS = 10_000;

export interface ConnectionTestResult extends ProbeReport {
  source: { id: string; name: string; kind: string };
  testedAt: Date;
}

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
  };
}
