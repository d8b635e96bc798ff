// What is left of a dead letter whose month retention dropped (docs/design.md "Partitioning"): its
// compact tombstone in dead_letter_tombstones. A link to it (an audit event, a redrive item) then
// answers 410 Gone with this, not a bare 404. Scoped by team in the query like the dead letter was:
// another team's tombstone is a 404.
import { z } from 'zod';
import { sourceScope, type Principal } from '@/lib/auth';
import { pg } from '@/lib/db';
import { DEAD_LETTER_REASONS, DEAD_LETTER_STATUSES, type DeadLetterReason, type DeadLetterStatus } from '@/lib/enums';
import { AppError } from '@/lib/errors';
import { maskErrorText } from '@/lib/masking';
import { isoTime } from '@/lib/wire';

export const DeadLetterHistory = z
  .array(z.object({ at: isoTime, action: z.string(), actor: z.string(), role: z.string(), reason: z.string().nullable() }))
  .describe("Audit events about this dead letter, oldest first (bulk decisions are recorded on the row's decision)");
export type DeadLetterHistory = z.infer<typeof DeadLetterHistory>;

/** The audit events naming dead letter `id` (they outlive its row), unmasked: the caller masks. */
export async function deadLetterHistory(id: bigint): Promise<DeadLetterHistory> {
  const rows = await pg()<{ at: Date; action: string; actor_email: string; actor_role: string; reason: string | null }[]>`
    SELECT at, action, actor_email, actor_role, reason FROM audit_events
    WHERE target_type = 'deadletter' AND target_id = ${id.toString()} ORDER BY id LIMIT 200`;
  return rows.map((h) => ({ at: h.at.toISOString(), action: h.action, actor: h.actor_email, role: h.actor_role, reason: h.reason }));
}

/** The source a dead letter belongs to, with its team. */
export const DeadLetterSourceRef = z.object({ id: z.uuid(), name: z.string(), teamId: z.uuid(), team: z.string() });

/** Who decided the dead letter's status (discarded, archived…), when and why. */
export const DeadLetterDecision = z.object({
  decidedBy: z.object({ id: z.uuid(), email: z.string() }).nullable(),
  decidedAt: isoTime.nullable(),
  reason: z.string().nullable(),
});

/** The columns of a dead letter's (or its tombstone's) row that hold its source and its decision. */
export interface SourceAndDecisionRow {
  source_id: string;
  source_name: string;
  team_id: string;
  team_name: string;
  decided_by_id: string | null;
  decided_by_email: string | null;
  decided_at: Date | null;
  decision_reason: string | null;
}

/** The source and the decision of a row (its decision reason as stored: the caller masks). */
export function sourceAndDecision(r: SourceAndDecisionRow): { source: DeadLetterSourceRef; decision: DeadLetterDecision } {
  return {
    source: { id: r.source_id, name: r.source_name, teamId: r.team_id, team: r.team_name },
    decision: {
      decidedBy: r.decided_by_id ? { id: r.decided_by_id, email: r.decided_by_email ?? 'unknown' } : null,
      decidedAt: r.decided_at?.toISOString() ?? null,
      reason: r.decision_reason,
    },
  };
}

/** The columns a tombstone keeps of its dead letter, named alike in both tables. */
export interface KeptRow {
  id: bigint | string;
  message_id: string;
  generation: number;
  redrive_count: number;
  status: DeadLetterStatus;
  reason: DeadLetterReason;
  error_type: string | null;
  dead_at: Date;
  expires_at: Date;
  payload_size: number;
  payload_sha256: string;
}

/** What a tombstone keeps of a dead letter, as the dead letter's detail and the tombstone both show it. */
export function keptFields(r: KeptRow) {
  return {
    id: String(r.id),
    messageId: r.message_id,
    generation: r.generation,
    redriveCount: r.redrive_count,
    status: r.status,
    reason: r.reason,
    errorType: r.error_type,
    deadAt: r.dead_at.toISOString(),
    expiresAt: r.expires_at.toISOString(),
    payloadSize: r.payload_size,
    sha256: r.payload_sha256,
  };
}

export const DeadLetterTombstoneView = z.object({
  id: z.string(),
  source: DeadLetterSourceRef,
  messageId: z.string(),
  generation: z.int(),
  redriveCount: z.int(),
  status: z.enum(DEAD_LETTER_STATUSES).describe('Its status when dropped: a decided one (expired, discarded, redriven)'),
  reason: z.enum(DEAD_LETTER_REASONS),
  errorType: z.string().nullable(),
  clusterId: z.uuid().nullable(),
  deadAt: isoTime,
  expiresAt: isoTime,
  payloadSize: z.int(),
  sha256: z.string(),
  decision: DeadLetterDecision,
  droppedAt: isoTime.describe('When retention dropped its month (payload, headers, error text and failure history went with it)'),
  history: DeadLetterHistory,
});
export type DeadLetterTombstoneView = z.infer<typeof DeadLetterTombstoneView>;
export type DeadLetterSourceRef = z.infer<typeof DeadLetterSourceRef>;
export type DeadLetterDecision = z.infer<typeof DeadLetterDecision>;

/** The 410 body: the error envelope, its details the tombstone. */
export const DeadLetterGoneView = z.object({
  error: z.object({ code: z.literal('gone'), message: z.string(), details: z.object({ tombstone: DeadLetterTombstoneView }) }),
});

/** The tombstone of dead letter `id` within the actor's read scope, or null. */
export async function getDeadLetterTombstone(actor: Principal, id: bigint): Promise<DeadLetterTombstoneView | null> {
  const team = sourceScope(actor, 'deadletters.read').teamId ?? null;
  const sql = pg();
  const [r] = await sql`
    SELECT t.id, t.source_id, s.name AS source_name, s.team_id, tm.name AS team_name, t.message_id, t.generation, t.redrive_count,
      t.status, t.reason, t.error_type, t.cluster_id, t.dead_at, t.expires_at, t.payload_size, t.payload_sha256,
      t.decided_by_id, u.email AS decided_by_email, t.decided_at, t.decision_reason, t.dropped_at
    FROM dead_letter_tombstones t
    JOIN sources s ON s.id = t.source_id
    JOIN teams tm ON tm.id = s.team_id
    LEFT JOIN users u ON u.id = t.decided_by_id
    WHERE t.id = ${id.toString()}::bigint ${team ? sql`AND s.team_id = ${team}::uuid` : sql``}`;
  if (!r) return null;
  // Free text: masked as the dead letter's decision reasons were (lib/masking).
  const mask = (text: string | null) => maskErrorText(text) ?? null;
  const history = await deadLetterHistory(id);
  const { source, decision } = sourceAndDecision(r as SourceAndDecisionRow);
  return {
    ...keptFields(r as KeptRow),
    source,
    clusterId: r.cluster_id,
    decision: { ...decision, reason: mask(decision.reason) },
    droppedAt: r.dropped_at.toISOString(),
    history: history.map((h) => ({ ...h, reason: mask(h.reason) })),
  };
}

const day = (iso: string) => iso.slice(0, 10);

/** 410 Gone for a dropped dead letter: what it was and when retention dropped it. */
export function droppedByRetention(t: DeadLetterTombstoneView): AppError {
  return new AppError(
    'gone',
    `Dead letter ${t.id} (${t.source.name}, message ${t.messageId}, ${t.status}, dead ${day(t.deadAt)}) was dropped by retention on ${day(t.droppedAt)}: only its tombstone is kept`,
    { tombstone: t },
  );
}
