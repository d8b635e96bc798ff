// The one audit write. Every mutation calls append() inside its own transaction, so the event
// commits or rolls back with the change (docs/design.md "Non-negotiables" 3).
import type { Tx } from '@/lib/db';
import type { Prisma } from '@/generated/prisma/client';
import { GENESIS_HASH, eventHash, type HashedFields } from './canonical';

export interface AuditActor {
  userId: string | null;
  email: string;
  role: string;
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

export async function append(tx: Tx, input: AuditInput): Promise<{ id: bigint; hash: string }> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${AUDIT_LOCK_KEY}::bigint)`;
  const last = await tx.$queryRaw<{ hash: string }[]>`SELECT hash FROM audit_events ORDER BY id DESC LIMIT 1`;
  const fields: HashedFields = {
    at: new Date(),
    actorId: input.actor.userId,
    actorEmail: input.actor.email,
    actorRole: input.actor.role,
    action: input.action,
    targetType: input.targetType ?? null,
    targetId: input.targetId ?? null,
    teamId: input.teamId ?? null,
    sourceId: input.sourceId ?? null,
    selection: input.selection ?? null,
    count: input.count ?? null,
    reason: input.reason ?? null,
    before: input.before ?? null,
    after: input.after ?? null,
    result: input.result ?? null,
    prevHash: last[0]?.hash ?? GENESIS_HASH,
  };
  const hash = eventHash(fields);
  const json = (v: unknown) => (v === null ? undefined : (JSON.parse(JSON.stringify(v, jsonSafe)) as Prisma.InputJsonValue));
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

function jsonSafe(_k: string, v: unknown) {
  return typeof v === 'bigint' ? v.toString() : v;
}
