// A source's broker policy as the runtime applies it, read from Postgres (the lead owns it there)
// and cached briefly so a policy change reaches running consumers without a restart.
import type { SourceKind } from '@/lib/model/source-kind';
import { pg } from '@/lib/db';
import { AppError } from '@/lib/errors';

export interface RuntimePolicy {
  id: string;
  name: string;
  kind: SourceKind;
  maxReceives: number;
  /** The visibility timeout: BullMQ's lockDuration. */
  visibilityTimeoutMs: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  maxRedrives: number;
  retentionSeconds: number;
  payloadLimitBytes: number;
}

export const POLICY_TTL_MS = 2_000;

async function loadPolicy(sourceName: string): Promise<RuntimePolicy | null> {
  const rows = await pg()<RuntimePolicy[]>`
    SELECT id, name, kind, max_receives AS "maxReceives", visibility_timeout_ms AS "visibilityTimeoutMs",
           backoff_base_ms AS "backoffBaseMs", backoff_cap_ms AS "backoffCapMs", max_redrives AS "maxRedrives",
           retention_seconds AS "retentionSeconds", payload_limit_bytes AS "payloadLimitBytes"
    FROM sources WHERE name = ${sourceName}`;
  return rows[0] ?? null;
}

const cache = new Map<string, { policy: RuntimePolicy; loadedAt: number; loading?: Promise<RuntimePolicy> }>();

/**
 * The policy of a built-in source, at most POLICY_TTL_MS old. While a reload fails (Postgres away)
 * the last known policy keeps serving, so a database blip does not stop the consumers.
 */
export async function sourcePolicy(sourceName: string, opts: { fresh?: boolean } = {}): Promise<RuntimePolicy> {
  const hit = cache.get(sourceName);
  if (hit && !opts.fresh && Date.now() - hit.loadedAt < POLICY_TTL_MS) return hit.policy;
  if (hit?.loading) return hit.loading;
  const loading = loadPolicy(sourceName).then(
    (policy) => {
      if (policy?.kind !== 'builtin') {
        cache.delete(sourceName);
        if (!policy) throw new AppError('not_found', `No source "${sourceName}"`);
        throw new AppError('conflict', `Source "${sourceName}" is fed by the ingest API, not the broker runtime`);
      }
      cache.set(sourceName, { policy, loadedAt: Date.now() });
      return policy;
    },
    (err: unknown) => {
      if (!hit) throw err;
      cache.set(sourceName, { policy: hit.policy, loadedAt: Date.now() });
      return hit.policy;
    },
  );
  if (hit) hit.loading = loading;
  return loading;
}

/** The cached policy without waiting, for synchronous callers (BullMQ's backoff strategy). */
export function cachedPolicy(sourceName: string): RuntimePolicy | undefined {
  return cache.get(sourceName)?.policy;
}
