// One dead letter with all it carries (docs/design.md "What a dead letter carries"), and its
// payload bytes.
// Authorization in the query: another team's dead letter answers 404, as if it did not exist.
import { pg } from '@/lib/db';
import { authorize, sourceScope, type Permission, type Principal } from '@/lib/auth';
import { notFound } from '@/lib/errors';
import { z } from 'zod';
import { ACTIVE_REDRIVE_STATUSES, DEAD_LETTER_REASONS, DEAD_LETTER_STATUSES, type DeadLetterStatus } from '@/lib/enums';
import { isoTime } from '@/lib/wire';
import { FailureEntry } from '@/lib/model/dead-letter';
import {
  DeadLetterDecision,
  DeadLetterHistory,
  DeadLetterSourceRef,
  deadLetterHistory,
  droppedByRetention,
  getDeadLetterTombstone,
  keptFields,
  type KeptRow,
  sourceAndDecision,
  type SourceAndDecisionRow,
} from './get-tombstone';
import { maskDeadLetterText, maskErrorText, maskStoredPayload, sensitivePathsOf, verdictMasked, type MaskedPayload, type PayloadPolicy } from '@/lib/masking';

export function parseDeadLetterId(id: string): bigint {
  if (!/^\d{1,19}$/.test(id)) throw notFound('No such dead letter');
  const n = BigInt(id);
  if (n > 9_223_372_036_854_775_807n) throw notFound('No such dead letter');
  return n;
}

export const DeadLetterDetail = z.object({
  id: z.string(),
  source: DeadLetterSourceRef,
  messageId: z.string(),
  generation: z.int(),
  idempotencyKey: z.string().nullable(),
  orderingKey: z.string().nullable(),
  status: z.enum(DEAD_LETTER_STATUSES),
  reason: z.enum(DEAD_LETTER_REASONS),
  errorType: z.string().nullable(),
  errorMessage: z.string().nullable(),
  errorStack: z.string().nullable(),
  receiveCount: z.int(),
  redriveCount: z.int(),
  enqueuedAt: isoTime.nullable(),
  firstFailedAt: isoTime.nullable(),
  lastFailedAt: isoTime.nullable(),
  deadAt: isoTime,
  expiresAt: isoTime,
  createdAt: isoTime,
  consumerName: z.string().nullable(),
  consumerVersion: z.string().nullable(),
  correlationId: z.string().nullable(),
  partition: z.int().nullable(),
  offset: z.string().nullable(),
  payloadSize: z.int(),
  sha256: z.string(),
  contentType: z.string().nullable(),
  payloadAvailable: z.boolean().describe('false once discarded or expired: the row is a tombstone'),
  headers: z.unknown().describe('As sent (a JSON object), masked for roles without payload.reveal'),
  failureHistory: z.array(FailureEntry),
  fingerprint: z.string(),
  cluster: z.object({ id: z.uuid(), template: z.string(), errorType: z.string().nullable(), count: z.int(), openCount: z.int() }).nullable(),
  sensitive: z.boolean(),
  masked: z.boolean().describe('The stored verdict: the payload holds masked values, shown masked until revealed (audited)'),
  decision: DeadLetterDecision,
  history: DeadLetterHistory,
  heldBy: z
    .object({ taskId: z.uuid(), status: z.enum(ACTIVE_REDRIVE_STATUSES), pausedReason: z.string().nullable() })
    .nullable()
    .describe('The redrive task that holds it (queued, awaiting approval, running or paused): it stays on the age clock meanwhile'),
});
export type DeadLetterDetail = z.infer<typeof DeadLetterDetail>;

function teamOf(actor: Principal, permission: Permission): string | null {
  return sourceScope(actor, permission).teamId ?? null;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** Why a dead letter in scope is not in dead_letters: its month was dropped (410, with its tombstone), or it never was (404). */
async function missing(actor: Principal, id: bigint) {
  const tombstone = await getDeadLetterTombstone(actor, id);
  return tombstone ? droppedByRetention(tombstone) : notFound('No such dead letter');
}

/**
 * `clear`: headers and error text as sent; by default only for roles with payload.reveal (the page
 * passes whether this reader has an active reveal). Otherwise masked by lib/masking.
 */
export async function getDeadLetter(actor: Principal, idParam: string, opts: { clear?: boolean } = {}): Promise<DeadLetterDetail> {
  authorize(actor, 'deadletters.read');
  const id = parseDeadLetterId(idParam);
  const team = teamOf(actor, 'deadletters.read');
  const sql = pg();
  const [r] = await sql`
    SELECT d.id, d.source_id, s.name AS source_name, s.team_id, t.name AS team_name, s.sensitive_paths,
      d.message_id, d.generation, d.idempotency_key, d.ordering_key, d.status, d.reason, d.error_type, d.error_message,
      d.error_stack, d.receive_count, d.redrive_count, d.enqueued_at, d.first_failed_at, d.last_failed_at, d.dead_at,
      d.expires_at, d.created_at, d.consumer_name, d.consumer_version, d.correlation_id, d.partition, d."offset",
      d.payload_size, d.payload_sha256, d.content_type, (d.payload IS NOT NULL) AS payload_available, d.headers,
      d.failure_history, d.fingerprint, d.sensitive, d.payload_masked, d.text_masked,
      s.masking_recompute_from IS NOT NULL AS recomputing, d.decided_by_id, u.email AS decided_by_email, d.decided_at,
      d.decision_reason, c.id AS cluster_id, c.template AS cluster_template, c.error_type AS cluster_error_type,
      c.count AS cluster_count, c.open_count AS cluster_open_count
    FROM dead_letters d
    JOIN sources s ON s.id = d.source_id
    JOIN teams t ON t.id = s.team_id
    LEFT JOIN clusters c ON c.id = d.cluster_id
    LEFT JOIN users u ON u.id = d.decided_by_id
    WHERE d.id = ${id.toString()}::bigint ${team ? sql`AND s.team_id = ${team}::uuid` : sql``}`;
  if (!r) throw await missing(actor, id);
  const [history, [held]] = await Promise.all([
    deadLetterHistory(id),
    sql<{ id: string; status: (typeof ACTIVE_REDRIVE_STATUSES)[number]; paused_reason: string | null }[]>`
      SELECT t.id, t.status, t.paused_reason FROM redrive_items i JOIN redrive_tasks t ON t.id = i.task_id
      WHERE i.dead_letter_id = ${id.toString()}::bigint AND t.status IN ${sql([...ACTIVE_REDRIVE_STATUSES])}
      ORDER BY t.created_at DESC LIMIT 1`,
  ]);
  const { source, decision } = sourceAndDecision(r as SourceAndDecisionRow);
  const detail: DeadLetterDetail = {
    ...keptFields(r as KeptRow),
    source,
    idempotencyKey: r.idempotency_key,
    orderingKey: r.ordering_key,
    errorMessage: r.error_message,
    errorStack: r.error_stack,
    receiveCount: r.receive_count,
    enqueuedAt: iso(r.enqueued_at),
    firstFailedAt: iso(r.first_failed_at),
    lastFailedAt: iso(r.last_failed_at),
    createdAt: r.created_at.toISOString(),
    consumerName: r.consumer_name,
    consumerVersion: r.consumer_version,
    correlationId: r.correlation_id,
    partition: r.partition,
    offset: r.offset == null ? null : String(r.offset),
    contentType: r.content_type,
    payloadAvailable: r.payload_available,
    headers: r.headers,
    failureHistory: Array.isArray(r.failure_history) ? r.failure_history : [],
    fingerprint: r.fingerprint,
    cluster: r.cluster_id
      ? { id: r.cluster_id, template: r.cluster_template, errorType: r.cluster_error_type, count: r.cluster_count, openCount: r.cluster_open_count }
      : null,
    sensitive: r.sensitive,
    masked: verdictMasked(r.payload_masked, r.recomputing),
    decision,
    history,
    heldBy: held ? { taskId: held.id, status: held.status, pausedReason: held.paused_reason } : null,
  };
  // One rule on every path: clear only through a reveal (the page's, or the API's ?reveal=), whatever the role.
  if (opts.clear) return detail;
  // Decision reasons are free text too: the same detectors.
  const masked = maskDeadLetterText(detail);
  return {
    ...masked,
    decision: { ...masked.decision, reason: maskErrorText(masked.decision.reason) ?? null },
    history: masked.history.map((h) => ({ ...h, reason: maskErrorText(h.reason) ?? null })),
    heldBy: masked.heldBy ? { ...masked.heldBy, pausedReason: maskErrorText(masked.heldBy.pausedReason) ?? null } : null,
  };
}

/** Where a dead letter belongs, if it is within the actor's scope for `permission` (else 404). */
export async function deadLetterOwner(actor: Principal, idParam: string, permission: Permission) {
  authorize(actor, permission);
  const id = parseDeadLetterId(idParam);
  const team = teamOf(actor, permission);
  const sql = pg();
  const [r] = await sql<{ source_id: string; team_id: string; status: DeadLetterStatus }[]>`
    SELECT d.source_id, s.team_id, d.status FROM dead_letters d JOIN sources s ON s.id = d.source_id
    WHERE d.id = ${id.toString()}::bigint ${team ? sql`AND s.team_id = ${team}::uuid` : sql``}`;
  if (!r) throw notFound('No such dead letter');
  return { id, sourceId: r.source_id, teamId: r.team_id, status: r.status };
}

export interface DeadLetterPayload {
  id: bigint;
  sourceId: string;
  teamId: string;
  status: DeadLetterStatus;
  /** Null once discarded or expired. */
  payload: Buffer | null;
  contentType: string | null;
  size: number;
  sha256: string;
  policy: PayloadPolicy & { paths: string[] };
  /** The stored verdict (null: not decided yet) and whether its source's verdicts are being recomputed: see maskStoredPayload. */
  verdict: boolean | null;
  recomputing: boolean;
}

/** What a reader without a reveal may see of this payload (lib/masking/verdict.ts). */
export function maskedView(p: DeadLetterPayload & { payload: Buffer }): MaskedPayload {
  return maskStoredPayload(p.payload, p.policy, p.verdict, p.recomputing);
}

/** The stored bytes and what masking applies; the caller decides (download, viewer, reveal). */
export async function getDeadLetterPayload(actor: Principal, idParam: string): Promise<DeadLetterPayload> {
  authorize(actor, 'deadletters.read');
  const id = parseDeadLetterId(idParam);
  const team = teamOf(actor, 'deadletters.read');
  const sql = pg();
  const [r] = await sql`
    SELECT d.id, d.source_id, s.team_id, d.status, d.payload, d.content_type, d.payload_size, d.payload_sha256, d.sensitive, s.sensitive_paths,
      d.payload_masked, s.masking_recompute_from IS NOT NULL AS recomputing
    FROM dead_letters d JOIN sources s ON s.id = d.source_id
    WHERE d.id = ${id.toString()}::bigint ${team ? sql`AND s.team_id = ${team}::uuid` : sql``}`;
  if (!r) throw await missing(actor, id);
  return {
    id,
    sourceId: r.source_id,
    teamId: r.team_id,
    status: r.status,
    payload: r.payload,
    contentType: r.content_type,
    size: r.payload_size,
    sha256: r.payload_sha256,
    policy: { sensitive: r.sensitive, paths: sensitivePathsOf(r.sensitive_paths) },
    verdict: r.payload_masked,
    recomputing: r.recomputing,
  };
}
