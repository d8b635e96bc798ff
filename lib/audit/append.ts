// The one audit write. Every mutation calls append() inside its own transaction, so the event
// commits or rolls back with the change (docs/design.md "Non-negotiables" 3).
import type { Tx } from '@/lib/db';
import type { Prisma } from '@/generated/prisma/client';
import { systemClock, type Clock } from '@/lib/clock';
import { GENESIS_HASH, eventHash, storableJson, storableText, type HashedFields } from './canonical';

export interface AuditActor {
  userId: string | null;
  email: string;
  role: string;
  /** "assistant": the person acted through their MCP assistant (lib/assistant). */
  via?: 'assistant';
}

export const SYSTEM_ACTOR: AuditActor = { userId: null, email: 'system', role: 'system' };

export interface AuditInput {
  actor: AuditActor;
  action: string; // "domain.verb", e.g. "deadletter.archive"
  targetType?: string;
  targetId?: string;
  teamId?: string | null;
  sourceId?: string | null;
  selection?: unknown;
  count?: number;
  reason?: string | null;
  before?: unknown;
  after?: unknown;
  result?: string;
}

// Serialises appends: the chain needs each event to see the previous one, and the lock is held
// until the caller's transaction ends, so id order is chain order.
const AUDIT_LOCK_KEY = 7_201_000_001;

/**
 * The clock stamps the event's time (the demo history passes its simulated one). The chain is in
 * insertion order, not time order: a caller with a clock of its own appends in its clock's order
 * and before anything live (lib/demo/past), so the trail's times rise with its ids.
 */
export async function append(tx: Tx, input: AuditInput, clock: Clock = systemClock): Promise<{ id: bigint; hash: string }> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${AUDIT_LOCK_KEY}::bigint)`;
  const last = await tx.$queryRaw<{ hash: string }[]>`SELECT hash FROM audit_events ORDER BY id DESC LIMIT 1`;
  // Hashed as Postgres will store it (storableText): what verify reads back must hash the same.
  const text = (v: string | null | undefined) => (v == null ? null : storableText(v));
  const fields: HashedFields = {
    at: clock.now(),
    actorId: input.actor.userId,
    actorEmail: storableText(input.actor.email),
    actorRole: input.actor.role,
    ...(input.actor.via ? { actorVia: input.actor.via } : {}),
    action: input.action,
    targetType: text(input.targetType),
    targetId: text(input.targetId),
    teamId: input.teamId ?? null,
    sourceId: input.sourceId ?? null,
    selection: storableJson(input.selection),
    count: input.count ?? null,
    reason: text(input.reason),
    before: storableJson(input.before),
    after: storableJson(input.after),
    result: text(input.result),
    prevHash: last[0]?.hash ?? GENESIS_HASH,
  };
  const hash = eventHash(fields);
  const json = (v: unknown) => (v === null ? undefined : (v as Prisma.InputJsonValue));
  const row = await tx.auditEvent.create({
    data: {
      ...fields,
      selection: json(fields.selection),
      before: json(fields.before),
      after: json(fields.after),
      hash,
    },
    select: { id: true },
  });
  return { id: row.id, hash };
}
