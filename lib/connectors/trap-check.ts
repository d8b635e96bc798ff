// The known traps on a connector source's page (lib/connectors/traps.ts): a page render runs the
// source's probe at most once a minute per source, bounded in time so a slow or unreachable broker
// costs the page at most that, and says "could not check" instead of failing the page.
import type { Principal } from '@/lib/auth';
import { AppError } from '@/lib/errors';
import { findSource } from '@/lib/model/find-source';
import { connectorSourceOf } from './index';
import { sqsConfigSchema } from './sqs/config';
import { sqsRedriveTraps } from './sqs/traps';
import { scrubSecrets } from './secrets';
import type { Trap } from './traps';
import { isConnectorKind, type ConnectorKind, type ProbeReport } from './types';

export const TRAP_CHECK_TIMEOUT_MS = 3_000;

const BROKER_NAMES: Record<ConnectorKind, string> = {
  sqs: 'SQS',
  rabbitmq: 'RabbitMQ',
  nats: 'NATS',
  bullmq: 'Redis',
  sidekiq: 'Redis',
  azure_queue: 'Azure Storage',
};

export type TrapCheck = { traps: Trap[] } | { error: string };

/** How long one check's answer serves every reader of the source's page in this process. */
export const TRAP_CHECK_TTL_MS = 60_000;
const recent = new Map<string, { at: number; check: Promise<TrapCheck> }>();

/**
 * The source's traps for its page: one probe per source and minute in this process, shared by the
 * renders that ask meanwhile (a page refreshed during an incident does not multiply the load on a
 * broker already in trouble). Keyed by the stored settings, so a changed source is checked afresh.
 */
export async function sourceTrapCheck(actor: Principal, sourceRef: string, timeoutMs = TRAP_CHECK_TIMEOUT_MS): Promise<TrapCheck> {
  const row = await findSource(actor, sourceRef, 'deadletters.read');
  if (!isConnectorKind(row.kind)) return { traps: [] };
  const key = `${row.id}\u0001${JSON.stringify(row.connection ?? null)}\u0001${Buffer.from(row.connectionSecret ?? []).toString('base64')}`;
  const now = Date.now();
  const hit = recent.get(key);
  if (hit && now - hit.at < TRAP_CHECK_TTL_MS) return hit.check;
  for (const [k, v] of recent) if (now - v.at >= TRAP_CHECK_TTL_MS) recent.delete(k);
  const check = probeTraps(row, timeoutMs);
  recent.set(key, { at: now, check });
  return check;
}

async function probeTraps(row: Awaited<ReturnType<typeof findSource>>, timeoutMs: number): Promise<TrapCheck> {
  let resolved;
  try {
    resolved = connectorSourceOf(row);
  } catch (e) {
    // Settings that no longer parse, or no credentials: the same words as "test connection". Any
    // other throw is not shown (its text could carry a credential).
    return { error: e instanceof AppError ? e.message : 'the check failed' };
  }
  const { connector, source } = resolved;
  const signal = AbortSignal.timeout(timeoutMs);
  const timedOut = new Promise<ProbeReport>((resolve) =>
    signal.addEventListener('abort', () => {
      const error = `no answer from ${BROKER_NAMES[source.kind]} within ${Math.round(timeoutMs / 1000)} s`;
      resolve({ ok: false, summary: error, facts: {}, error });
    }),
  );
  const scrub = (t: string) => scrubSecrets(t, source.secret);
  try {
    const report = await Promise.race([connector.probe(source, signal), timedOut]);
    if (!report.ok) return { error: scrub(report.error ?? report.summary) };
    return { traps: (report.traps ?? []).map((t) => ({ ...t, message: scrub(t.message), fix: scrub(t.fix) })) };
  } catch {
    return { error: 'the check failed' };
  }
}

/** The traps to say before a redrive of a source, from its stored settings (no broker call): an SQS FIFO source's order. */
export function redriveTraps(kind: string, connection: unknown): Trap[] {
  if (kind !== 'sqs') return [];
  const config = sqsConfigSchema.safeParse(connection ?? {});
  return config.success ? sqsRedriveTraps(config.data) : [];
}
