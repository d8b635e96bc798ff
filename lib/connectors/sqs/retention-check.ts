// The retention trap on an SQS source's page (DESIGN.md "Connectors"): a page render reads the DLQ's
// and its source queue's retention from SQS, bounded in time so a slow or unreachable endpoint
// costs the page at most that, and says "could not check" instead of failing the page.
import type { Principal } from '@/lib/auth';
import { AppError } from '@/lib/errors';
import { findSource } from '@/lib/sources/find-source';
import { sqsRetentionCheck } from './probe';

export const RETENTION_CHECK_TIMEOUT_MS = 3_000;

export type RetentionCheck = { warnings: string[] } | { error: string };

export async function sourceRetentionCheck(actor: Principal, sourceRef: string, timeoutMs = RETENTION_CHECK_TIMEOUT_MS): Promise<RetentionCheck> {
  const row = await findSource(actor, sourceRef, 'deadletters.read');
  if (row.kind !== 'sqs') return { warnings: [] };
  const signal = AbortSignal.timeout(timeoutMs);
  const timedOut = new Promise<RetentionCheck>((resolve) =>
    signal.addEventListener('abort', () => resolve({ error: `no answer from SQS within ${Math.round(timeoutMs / 1000)} s` })),
  );
  try {
    // The probe's errors are already in words safe to show (sqsError names no credential).
    return await Promise.race([sqsRetentionCheck(row, signal), timedOut]);
  } catch (e) {
    // Settings that no longer parse, or no credentials: the same words as "test connection". Any
    // other throw is not shown (its text could carry a credential).
    return { error: e instanceof AppError ? e.message : 'the check failed' };
  }
}
