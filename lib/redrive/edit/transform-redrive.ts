// Bulk transform (the case no tool covers: a schema change left 20,000 messages stuck): a declared
// transform over a selection or cluster, previewed on sample messages with the count it applies to
// and the dead letters it cannot apply to (not JSON, path missing), then a redrive task of the
// transformed copies. Those it cannot apply to are listed on the task and not sent.
import { z } from 'zod';
import { Prisma } from '@/generated/prisma/client';
import { db, type Tx } from '@/lib/db';
import { takeWithinBytes } from '@/lib/db/byte-bound';
import { append } from '@/lib/audit';
import { auditActor, authorize, type Principal } from '@/lib/auth';
import { systemClock, type Clock } from '@/lib/clock';
import { AppError } from '@/lib/errors';
import { maskJson, maskPayload, sensitivePathsOf } from '@/lib/masking';
import { reasonSchema } from '@/lib/deadletters/decide';
import { CannotApplyView, RedriveTaskDetail } from '../get-redrive';
import { nudgeRedrive } from '../nudge';
import { redriveSelection, resolveSelection, type RedriveSelectionInput, type ResolvedSelection } from '../selection';
import { DEFAULT_CANARY_WINDOW_SECONDS, DEFAULT_OUTCOME_WINDOW_SECONDS, DEFAULT_RATE, MAX_RATE, MAX_OUTCOME_WINDOW_SECONDS } from '../start-redrive';
import { resolveDestination } from '../destination-source';
import { createCopiesTask, type CopiesTask, type EditedCopy } from './copies-task';
import { editDiff } from './diff';
import { applyTransform, transformSpec, type TransformSpec } from './transform';
import { startedRecently, waitsFor } from '../four-eyes';
import { maskChanges, maskEditDiff } from './mask-diff';

/** A transform covers at most this many dead letters at once (each copy is stored). */
export const MAX_TRANSFORM = 50_000;
const SAMPLES = 3;
/** Of those it cannot apply to, this many are listed by id (all are counted). */
const LISTED = 500;
const PAGE = 500;
/** A page also stops at this many payload bytes (its first row always goes), like export batches and redrive claims. */
export const TRANSFORM_PAGE_BYTES = 8 * 1024 * 1024;

/** For tests and the bench: a smaller page bound, and each page's size as read. */
export interface TransformHooks {
  maxPageBytes?: number;
  onPage?: (page: { rows: number; payloadBytes: number }) => void;
  /** A page's copies written (versions and items): how many. */
  onCopiesWritten?: (n: number) => void;
}

export const transformInput = z
  .object({
    selection: redriveSelection,
    transform: transformSpec,
    reason: reasonSchema,
    destination: z.string().min(1).max(200).optional(),
    ratePerSecond: z.number().int().min(1).max(MAX_RATE).default(DEFAULT_RATE),
    canary: z.boolean().default(false),
    outcomeWindowSeconds: z.number().int().min(1).max(MAX_OUTCOME_WINDOW_SECONDS).default(DEFAULT_OUTCOME_WINDOW_SECONDS),
  })
  .strict();

export const transformPreviewInput = z.object({ selection: redriveSelection, transform: transformSpec }).strict();

export type TransformInput = z.input<typeof transformInput>;

export type CannotApply = z.infer<typeof CannotApplyView>[number];

export const TransformPreview = z.object({
  source: z.object({ id: z.uuid(), name: z.string() }),
  total: z.int().describe('Open dead letters the selection holds'),
  applies: z.int().describe("Of those, the transform applies to this many: the task's size"),
  cannotApplyCount: z.int(),
  cannotApply: CannotApplyView.describe('Up to 500 of those it cannot apply to, with why'),
  samples: z
    .array(z.object({ id: z.string(), messageId: z.string(), before: z.string(), after: z.string(), changes: z.unknown() }))
    .describe('A few messages before and after (masked as the viewer would show them)'),
  needsApproval: z.boolean().describe('Whether the task would wait for a second person'),
  editApprovalThreshold: z.int(),
});
export type TransformPreview = z.infer<typeof TransformPreview>;

/** POST /api/v1/redrives/transform: what was started, and the task as GET /api/v1/redrives/{id} shows it. */
export const TransformStartedView = z.object({
  applies: z.int(),
  cannotApplyCount: z.int(),
  cannotApply: CannotApplyView,
  waitsFor: z.string().nullable().describe('Why it waits for a second person; null: it does not'),
  task: RedriveTaskDetail,
});

interface Row {
  id: bigint;
  messageId: string;
  payload: Uint8Array | null;
  contentType: string | null;
  headers: unknown;
  sensitive: boolean;
}

const asHeaders = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * Walk the selection's open dead letters a page at a time, in death order. A page is sized first
 * (octet_length reads a stored bytea's size, not its bytes) and cut to the byte bound, then only
 * the rows it keeps are read whole.
 */
async function* openRows(tx: Tx, r: ResolvedSelection, hooks: TransformHooks): AsyncGenerator<Row[]> {
  const maxBytes = hooks.maxPageBytes ?? TRANSFORM_PAGE_BYTES;
  let after: { deadAt: Date; id: bigint } | null = null;
  for (;;) {
    const cursor: Prisma.Sql = after ? Prisma.sql`AND (d.dead_at, d.id) > (${after.deadAt}, ${after.id})` : Prisma.empty;
    const keys: { id: bigint; deadAt: Date; bytes: number }[] = await tx.$queryRaw`
      SELECT d.id, d.dead_at AS "deadAt", coalesce(octet_length(d.payload), 0)::int AS bytes
      FROM dead_letters d WHERE d.source_id = ${r.source.id}::uuid AND d.status = 'open' AND ${r.where} ${cursor}
      ORDER BY d.dead_at, d.id LIMIT ${PAGE}`;
    if (keys.length === 0) return;
    const kept = keys.slice(
      0,
      takeWithinBytes(
        keys.map((k) => k.bytes),
        maxBytes,
      ),
    );
    // Inside the caller's transaction: the rows sized are the rows read.
    const rows: Row[] = await tx.$queryRaw`
      SELECT d.id, d.message_id AS "messageId", d.payload, d.content_type AS "contentType", d.headers, d.sensitive
      -- By the partitions' key (id, dead_at): id alone would probe every month's partition.
      FROM dead_letters d WHERE (d.id, d.dead_at) IN (
        SELECT * FROM unnest(${kept.map((k) => k.id.toString())}::bigint[], ${kept.map((k) => k.deadAt)}::timestamptz[]))
      ORDER BY d.dead_at, d.id`;
    hooks.onPage?.({ rows: rows.length, payloadBytes: kept.reduce((a, k) => a + k.bytes, 0) });
    if (rows.length > 0) yield rows;
    const last = kept[kept.length - 1]!;
    after = { deadAt: last.deadAt, id: last.id };
    if (kept.length === keys.length && keys.length < PAGE) return;
  }
}

interface Evaluated {
  applies: number;
  cannotApply: CannotApply[];
  cannotApplyCount: number;
  total: number;
  samples: TransformPreview['samples'];
}

/**
 * Walk the selection and transform each dead letter. With `put`, each page's copies are handed over
 * before the next page is read (and dropped after): memory holds one page, not the selection.
 */
async function evaluate(
  tx: Tx,
  r: ResolvedSelection,
  spec: TransformSpec,
  paths: string[],
  hooks: TransformHooks,
  put?: (copies: EditedCopy[]) => Promise<void>,
): Promise<Evaluated> {
  const out: Evaluated = { applies: 0, cannotApply: [], cannotApplyCount: 0, total: 0, samples: [] };
  const decoder = new TextDecoder();
  for await (const page of openRows(tx, r, hooks)) {
    const copies: EditedCopy[] = [];
    for (const d of page) {
      out.total++;
      if (out.total > MAX_TRANSFORM) {
        throw new AppError('unprocessable', `The selection holds more than ${MAX_TRANSFORM} dead letters; narrow it`, { limit: MAX_TRANSFORM });
      }
      const headers = asHeaders(d.headers);
      const res = d.payload ? applyTransform(d.payload, headers, spec) : ({ ok: false, why: 'payload gone' } as const);
      if (!res.ok) {
        out.cannotApplyCount++;
        if (out.cannotApply.length < LISTED) out.cannotApply.push({ id: d.id.toString(), messageId: d.messageId, why: res.why });
        continue;
      }
      if (out.samples.length < SAMPLES) {
        const show = (b: Uint8Array) => {
          const m = maskPayload(b, { sensitive: d.sensitive, paths });
          return m.state === 'clear' ? decoder.decode(b) : m.state === 'masked' ? (m.json ?? decoder.decode(m.bytes)) : `(hidden: ${m.why})`;
        };
        const changes = maskChanges(res.changes, d.payload!, res.payload, { sensitive: d.sensitive, paths });
        out.samples.push({
          id: d.id.toString(),
          messageId: d.messageId,
          before: show(d.payload!),
          after: show(res.payload),
          changes: maskJson([...changes, ...res.headerChanges]),
        });
      }
      out.applies++;
      if (put) {
        copies.push({
          deadLetterId: d.id,
          payload: res.payload,
          contentType: d.contentType,
          headers: res.headers,
          diff: maskEditDiff(editDiff({ payload: d.payload!, headers }, { payload: res.payload, headers: res.headers }), d.payload!, res.payload, {
            sensitive: d.sensitive,
            paths,
          }),
          transform: spec,
        });
      }
    }
    if (put && copies.length > 0) {
      await put(copies);
      hooks.onCopiesWritten?.(copies.length);
    }
  }
  return out;
}

async function sourcePolicy(tx: Tx, sourceId: string) {
  const [p] = await tx.$queryRaw<{ editApprovalThreshold: number; paths: unknown }[]>`
    SELECT edit_approval_threshold AS "editApprovalThreshold", sensitive_paths AS paths FROM sources WHERE id = ${sourceId}::uuid`;
  return { editApprovalThreshold: p?.editApprovalThreshold ?? 1, paths: sensitivePathsOf(p?.paths) };
}

export async function previewTransform(
  actor: Principal,
  input: { selection: RedriveSelectionInput; transform: unknown },
  hooks: TransformHooks = {},
): Promise<TransformPreview> {
  authorize(actor, 'deadletters.edit');
  const i = transformPreviewInput.parse(input);
  return db().$transaction(
    async (tx) => {
      const r = await resolveSelection(tx, actor, 'deadletters.edit', i.selection);
      const policy = await sourcePolicy(tx, r.source.id);
      const e = await evaluate(tx, r, i.transform, policy.paths, hooks);
      const applies = e.applies;
      return {
        source: { id: r.source.id, name: r.source.name },
        total: e.total,
        applies,
        cannotApplyCount: e.cannotApplyCount,
        cannotApply: e.cannotApply,
        samples: e.samples,
        needsApproval:
          waitsFor(actor, applies, await startedRecently(tx, actor, r.source.id, new Date()), {
            approvalThreshold: r.source.approvalThreshold,
            editThreshold: policy.editApprovalThreshold,
          }) !== null,
        editApprovalThreshold: policy.editApprovalThreshold,
      };
    },
    { timeout: 120_000, maxWait: 10_000 },
  );
}

export interface TransformResult extends CopiesTask {
  applies: number;
  cannotApplyCount: number;
  cannotApply: CannotApply[];
}

export async function startTransform(
  actor: Principal,
  input: TransformInput,
  clock: Clock = systemClock,
  hooks: TransformHooks = {},
): Promise<TransformResult> {
  authorize(actor, 'deadletters.edit');
  const i = transformInput.parse(input);
  const result = await db().$transaction(
    async (tx) => {
      const r = await resolveSelection(tx, actor, 'deadletters.edit', i.selection);
      const destination = await resolveDestination(tx, actor, r.source, i.destination);
      const policy = await sourcePolicy(tx, r.source.id);
      // Counted first (four eyes decides on the count before anything is written), then transformed
      // again page by page as the versions are written: twice the CPU, one page of copies in memory.
      const e = await evaluate(tx, r, i.transform, policy.paths, hooks);
      const firstDiffs: unknown[] = [];
      const writing = {
        count: e.applies,
        write: async (put: (page: EditedCopy[]) => Promise<void>) => {
          await evaluate(tx, r, i.transform, policy.paths, hooks, async (page) => {
            for (const c of page) if (firstDiffs.length < 20) firstDiffs.push(c.diff);
            await put(page);
          });
        },
      };
      const copies = await createCopiesTask(
        tx,
        actor,
        r.source,
        writing,
        {
          ratePerSecond: i.ratePerSecond,
          canary: i.canary,
          outcomeWindowMs: i.outcomeWindowSeconds * 1000,
          canaryWindowMs: DEFAULT_CANARY_WINDOW_SECONDS * 1000,
          reason: i.reason,
          selection: i.selection,
          // Those it cannot apply to stay open and are named on the task, never sent.
          edit: { kind: 'transform', transform: i.transform, cannotApplyCount: e.cannotApplyCount, cannotApply: e.cannotApply },
          destination,
        },
        clock,
      );
      await append(
        tx,
        {
          actor: auditActor(actor),
          action: 'redrive.transform',
          targetType: 'redrive_task',
          targetId: copies.task.id,
          teamId: r.source.teamId,
          sourceId: r.source.id,
          selection: i.selection,
          count: copies.task.total,
          reason: i.reason,
          after: {
            status: copies.task.status,
            transform: i.transform,
            applies: copies.task.total,
            cannotApply: e.cannotApplyCount,
            destination: destination?.name ?? null,
            // The first few copies' hashes and diffs; every one is on its version row.
            versions: copies.versions
              .slice(0, 20)
              .map((v, k) => ({ deadLetterId: v.deadLetterId.toString(), sha256: v.sha256, diff: maskJson(firstDiffs[k]) })),
          },
          result: copies.waitsFor ?? undefined,
        },
        clock,
      );
      return { ...copies, applies: copies.task.total, cannotApplyCount: e.cannotApplyCount, cannotApply: e.cannotApply };
    },
    { timeout: 300_000, maxWait: 10_000 },
  );
  if (result.task.status === 'queued') await nudgeRedrive(result.task.id);
  return result;
}
