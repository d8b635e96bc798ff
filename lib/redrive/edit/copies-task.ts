// A redrive task of edited copies (an edit by hand, or a bulk transform): each copy is stored as a
// version of its dead letter (its own bytes, headers and SHA-256; the original stays untouched) and
// the task's items point at the versions they send. Four eyes by the one rule (../four-eyes.ts): a
// task of the source's editApprovalThreshold copies or more (default 1: every edit), or above its
// approval threshold, with what the same person started there in the last hour, waits for a second
// person through the ordinary approval.
import { createHash } from 'node:crypto';
import type { Prisma, RedriveTask } from '@/generated/prisma/client';
import type { Tx } from '@/lib/db';
import { isSystem, type Principal } from '@/lib/auth';
import { AppError } from '@/lib/errors';
import type { Clock } from '@/lib/clock';
import { ACTIVE_STATUSES } from '../get-redrive';
import { settleNewTask, startedRecently, waitsFor as fourEyes } from '../four-eyes';
import type { SelectedSource } from '../selection';

export interface EditedCopy {
  deadLetterId: bigint;
  payload: Buffer;
  contentType: string | null;
  headers: Record<string, unknown>;
  diff: unknown;
  transform?: unknown;
}

export interface CopiesTaskOptions {
  ratePerSecond: number;
  canary: boolean;
  outcomeWindowMs: number;
  canaryWindowMs: number;
  reason: string | null;
  selection: unknown;
  edit: Record<string, unknown>;
  destination: SelectedSource | null;
}

export interface CopiesTask {
  task: RedriveTask;
  versions: { id: bigint; deadLetterId: bigint; version: number; sha256: string; size: number }[];
  /** Why it waits, when it does. */
  waitsFor: string | null;
}

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

const CHUNK = 1_000;

/**
 * The copies of a task: how many there will be (four eyes counts them before any is written), and
 * a writer that hands them over in death order, a page at a time, so a bulk transform never holds
 * them all at once.
 */
export interface CopiesSource {
  count: number;
  write(put: (page: EditedCopy[]) => Promise<void>): Promise<void>;
}

/** Copies already in hand (an edit by hand: one). */
export const copiesOf = (copies: EditedCopy[]): CopiesSource => ({ count: copies.length, write: (put) => put(copies) });

/** Lock the origin, refuse a second active task (409), create the task, store the versions and items page by page. */
export async function createCopiesTask(
  tx: Tx,
  actor: Principal,
  source: SelectedSource,
  copies: CopiesSource,
  o: CopiesTaskOptions,
  clock: Clock,
): Promise<CopiesTask> {
  if (copies.count === 0) throw new AppError('unprocessable', 'Nothing to redrive: no dead letter has an edited copy');
  await tx.$executeRaw`SELECT 1 FROM sources WHERE id = ${source.id}::uuid FOR UPDATE`;
  const active = await tx.redriveTask.findFirst({ where: { sourceId: source.id, status: { in: ACTIVE_STATUSES } }, select: { id: true, status: true } });
  if (active) throw new AppError('conflict', `Source "${source.name}" already has an active redrive task (${active.status})`, { activeTaskId: active.id });
  const [policy] = await tx.$queryRaw<{ editApprovalThreshold: number }[]>`
    SELECT edit_approval_threshold AS "editApprovalThreshold" FROM sources WHERE id = ${source.id}::uuid`;
  const editThreshold = policy?.editApprovalThreshold ?? 1;
  // Before this task exists, so it is not counted twice.
  const recent = await startedRecently(tx, actor, source.id, clock.now());
  const waitsFor = fourEyes(actor, copies.count, recent, { approvalThreshold: source.approvalThreshold, editThreshold });
  const createdById = isSystem(actor) ? null : actor.userId;

  const created = await tx.redriveTask.create({
    data: {
      sourceId: source.id,
      destinationSourceId: o.destination?.id ?? null,
      status: 'queued',
      selection: o.selection as Prisma.InputJsonValue,
      edit: o.edit as Prisma.InputJsonValue,
      ratePerSecond: o.ratePerSecond,
      canary: o.canary,
      outcomeWindowMs: o.outcomeWindowMs,
      canaryWindowMs: o.canaryWindowMs,
      reason: o.reason,
      createdById,
      createdAt: clock.now(),
    },
  });
  const versions: CopiesTask['versions'] = [];
  let total = 0;
  await copies.write(async (page) => {
    for (let i = 0; i < page.length; i += CHUNK) {
      const written = await writeVersions(tx, page.slice(i, i + CHUNK), createdById, clock);
      versions.push(...written);
      // Oldest death first, as an ordinary redrive (pages come in death order); each item names the version it sends.
      total += await tx.$executeRaw`
        INSERT INTO redrive_items (task_id, seq, dead_letter_id, version_id)
        SELECT ${created.id}::uuid, ${total} + row_number() OVER (ORDER BY d.dead_at, d.id), d.id, v.id
        -- The key table has the source, dead_at and a unique id: no join on id alone against the partitions.
        FROM dead_letter_versions v JOIN dead_letter_keys d ON d.id = v.dead_letter_id
        WHERE v.id = ANY(${written.map((v) => v.id.toString())}::bigint[]) AND d.source_id = ${source.id}::uuid`;
    }
  });
  if (total === 0) throw new AppError('unprocessable', 'Nothing to redrive: no dead letter has an edited copy');
  const task = await settleNewTask(tx, created.id, total, Boolean(waitsFor));
  return { task, versions, waitsFor };
}

/** Store one chunk of copies as the next version of each dead letter. */
async function writeVersions(tx: Tx, chunk: EditedCopy[], createdById: string | null, clock: Clock): Promise<CopiesTask['versions']> {
  const ids = chunk.map((c) => c.deadLetterId.toString());
  const last = await tx.$queryRaw<{ id: bigint; v: number }[]>`
    SELECT dead_letter_id AS id, max(version)::int AS v FROM dead_letter_versions WHERE dead_letter_id = ANY(${ids}::bigint[]) GROUP BY 1`;
  const next = new Map(last.map((r) => [r.id.toString(), r.v]));
  const rows = await tx.deadLetterVersion.createManyAndReturn({
    data: chunk.map((c) => ({
      deadLetterId: c.deadLetterId,
      version: (next.get(c.deadLetterId.toString()) ?? 0) + 1,
      payload: new Uint8Array(c.payload),
      payloadSize: c.payload.length,
      payloadSha256: sha256(c.payload),
      contentType: c.contentType,
      headers: c.headers as Prisma.InputJsonValue,
      diff: c.diff as Prisma.InputJsonValue,
      transform: (c.transform ?? undefined) as Prisma.InputJsonValue | undefined,
      createdById,
      createdAt: clock.now(),
    })),
    select: { id: true, deadLetterId: true, version: true, payloadSha256: true, payloadSize: true },
  });
  return rows.map((r) => ({ id: r.id, deadLetterId: r.deadLetterId, version: r.version, sha256: r.payloadSha256, size: r.payloadSize }));
}
