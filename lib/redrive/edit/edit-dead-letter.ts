// Edit and redrive (ServicePulse "edit & retry"): a changed copy of one open dead letter's payload
// and headers is stored as a version and redriven by a task of one item; the original bytes stay
// as they were, downloadable. The audit event holds both SHA-256s and the diff. A payload that is
// masked for its reader is only edited after a reveal (payload.reveal, a reason, its own event).
import { z } from 'zod';
import { db } from '@/lib/db';
import { append } from '@/lib/audit';
import { auditActor, authorize, isSystem, type Principal } from '@/lib/auth';
import { AppError, forbidden, notFound } from '@/lib/errors';
import { systemClock, type Clock } from '@/lib/clock';
import { maskJson, maskStoredDiff, sensitivePathsOf, verdictMasked } from '@/lib/masking';
import { reasonSchema } from '@/lib/deadletters/decide';
import { parseDeadLetterId } from '@/lib/deadletters/get-dead-letter';
import { activeReveal } from '@/lib/deadletters/reveal-payload';
import { RedriveTaskDetail } from '../get-redrive';
import { nudgeRedrive } from '../nudge';
import { isoTime } from '@/lib/wire';
import { findSource } from '@/lib/model/find-source';
import { DEFAULT_CANARY_WINDOW_SECONDS, DEFAULT_OUTCOME_WINDOW_SECONDS, DEFAULT_RATE, MAX_RATE } from '../start-redrive';
import { resolveDestination } from '../destination-source';
import { copiesOf, createCopiesTask, sha256, type CopiesTask } from './copies-task';
import { editDiff, type EditDiff } from './diff';
import { maskEditDiff } from './mask-diff';
import { assertOwnedHeadersKept } from './broker-headers';
import { sameJson } from './same-json';

/** Headers a copy carries: a JSON object (values as the source's connector understands them). */
const headersSchema = z.record(z.string().min(1).max(200), z.unknown()).refine((h) => JSON.stringify(h).length <= 64 * 1024, 'headers over 64 KiB');

export const editInput = z
  .object({
    /** The new payload as text (UTF-8), or `payloadBase64` for bytes that are not. */
    payload: z.string().optional(),
    payloadBase64: z
      .string()
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64')
      .optional(),
    /** The new headers, whole; absent: the original's. */
    headers: headersSchema.optional(),
    reason: reasonSchema,
    /** The reveal event (POST …/reveal) that lets a masked payload be edited. */
    revealId: z
      .string()
      .regex(/^\d{1,19}$/)
      .optional(),
    /** Another source of the same kind whose allow-list names this one. */
    destination: z.string().min(1).max(200).optional(),
    ratePerSecond: z.number().int().min(1).max(MAX_RATE).default(DEFAULT_RATE),
  })
  .strict()
  .refine((i) => i.payload === undefined || i.payloadBase64 === undefined, { message: 'payload or payloadBase64, not both', path: ['payload'] });

export type EditInput = z.input<typeof editInput>;

export interface EditResult extends CopiesTask {
  diff: EditDiff;
  originalSha256: string;
}

const asHeaders = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export async function editDeadLetter(actor: Principal, idParam: string, input: EditInput, clock: Clock = systemClock): Promise<EditResult> {
  authorize(actor, 'deadletters.edit');
  const i = editInput.parse(input);
  const id = parseDeadLetterId(idParam);
  const result = await db().$transaction(
    async (tx) => {
      const [d] = await tx.$queryRaw<
        {
          sourceId: string;
          status: string;
          payload: Uint8Array | null;
          contentType: string | null;
          headers: unknown;
          sha: string;
          sensitive: boolean;
          paths: unknown;
          messageId: string;
          payloadMasked: boolean | null;
          textMasked: boolean | null;
          recomputing: boolean;
        }[]
      >`
        SELECT d.source_id AS "sourceId", d.status::text AS status, d.payload, d.content_type AS "contentType", d.headers,
          d.payload_sha256 AS sha, d.sensitive, s.sensitive_paths AS paths, d.message_id AS "messageId",
          d.payload_masked AS "payloadMasked", d.text_masked AS "textMasked", s.masking_recompute_from IS NOT NULL AS recomputing
        FROM dead_letters d JOIN sources s ON s.id = d.source_id WHERE d.id = ${id} FOR UPDATE OF d`;
      if (!d) throw notFound('No such dead letter');
      // Scope: another team's dead letter answers as one that does not exist.
      const source = await findSource(actor, d.sourceId, 'deadletters.edit', tx).catch(() => {
        throw notFound('No such dead letter');
      });
      if (d.status !== 'open') throw new AppError('conflict', `Only an open dead letter is edited and redriven; this one is ${d.status}`, { status: d.status });
      if (!d.payload) throw new AppError('conflict', 'The payload is gone (discarded or expired): nothing to edit');
      const original = Buffer.from(d.payload);
      // The stored verdict decides, as for every other reader (not decided yet, or under recompute: masked).
      const policy = { sensitive: d.sensitive, paths: sensitivePathsOf(d.paths) };
      const masked = verdictMasked(d.payloadMasked, d.recomputing) || verdictMasked(d.textMasked, d.recomputing);
      if (masked && !isSystem(actor) && !(await activeReveal(actor, idParam, i.revealId))) {
        throw forbidden('This payload is masked: reveal it (payload.reveal, with a reason) before editing it');
      }
      const payload =
        i.payloadBase64 !== undefined ? Buffer.from(i.payloadBase64, 'base64') : i.payload !== undefined ? Buffer.from(i.payload, 'utf8') : original;
      const [limit] = await tx.$queryRaw<{ bytes: number }[]>`SELECT payload_limit_bytes AS bytes FROM sources WHERE id = ${d.sourceId}::uuid`;
      if (limit && payload.length > limit.bytes)
        throw new AppError('payload_too_large', `The edited payload is ${payload.length} bytes; the source takes up to ${limit.bytes}`);
      const headersBefore = asHeaders(d.headers);
      const headersAfter = i.headers ?? headersBefore;
      assertOwnedHeadersKept(headersBefore, headersAfter);
      if (payload.equals(original) && sameJson(headersAfter, headersBefore)) {
        throw new AppError('unprocessable', 'Nothing changed: the copy would be the original', { field: 'payload' });
      }
      const diff = maskEditDiff(editDiff({ payload: original, headers: headersBefore }, { payload, headers: headersAfter }), original, payload, policy);
      const destination = await resolveDestination(tx, actor, source, i.destination);
      const copies = await createCopiesTask(
        tx,
        actor,
        source,
        copiesOf([{ deadLetterId: id, payload, contentType: d.contentType, headers: headersAfter, diff }]),
        {
          ratePerSecond: i.ratePerSecond,
          canary: false,
          outcomeWindowMs: DEFAULT_OUTCOME_WINDOW_SECONDS * 1000,
          canaryWindowMs: DEFAULT_CANARY_WINDOW_SECONDS * 1000,
          reason: i.reason,
          selection: { ids: [id.toString()] },
          edit: { kind: 'edit', deadLetterId: id.toString() },
          destination,
        },
        clock,
      );
      const v = copies.versions[0]!;
      await append(
        tx,
        {
          actor: auditActor(actor),
          action: 'deadletter.edit',
          targetType: 'deadletter',
          targetId: id.toString(),
          teamId: source.teamId,
          sourceId: source.id,
          selection: { ids: [id.toString()] },
          count: 1,
          reason: i.reason,
          before: { sha256: d.sha, size: original.length },
          // The diff's values pass the masking detectors: the trail is read by auditors of every team.
          after: {
            sha256: v.sha256,
            size: v.size,
            version: v.version,
            versionId: v.id.toString(),
            taskId: copies.task.id,
            status: copies.task.status,
            destination: destination?.name ?? null,
            diff: maskJson(diff),
          },
          result: copies.waitsFor ?? undefined,
        },
        clock,
      );
      return { ...copies, diff, originalSha256: d.sha };
    },
    { timeout: 60_000, maxWait: 10_000 },
  );
  if (result.task.status === 'queued') await nudgeRedrive(result.task.id);
  return result;
}

export const DeadLetterVersionView = z.object({
  id: z.string(),
  version: z.int(),
  sha256: z.string(),
  size: z.int(),
  contentType: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: isoTime,
  diff: z.unknown().describe('As the edit answered it, masked as on the trail'),
  transform: z.unknown(),
  tasks: z.array(z.uuid()).describe('Tasks that sent (or will send) this version'),
});
export type DeadLetterVersionView = z.infer<typeof DeadLetterVersionView>;
export const DeadLetterVersionsView = z.object({ versions: z.array(DeadLetterVersionView).describe('Newest first') });

/** POST /api/v1/dead-letters/{id}/edit: the version stored, the diff, and its task as GET /api/v1/redrives/{id} shows it. */
export const EditedView = z.object({
  version: z.object({ id: z.string(), version: z.int(), sha256: z.string(), size: z.int() }),
  originalSha256: z.string(),
  diff: z
    .unknown()
    .describe(
      'payload: { kind: json, changes: [{ op, path, before?, after? }], truncated } | { kind: text, removed, added } | { kind: bytes }; headers: [{ name, before, after }]',
    ),
  waitsFor: z.string().nullable().describe('Why it waits for a second person; null: it does not'),
  task: RedriveTaskDetail,
});

/** The edited copies of a dead letter, newest first (a read: diffs masked as on the trail). */
export async function listDeadLetterVersions(actor: Principal, idParam: string): Promise<DeadLetterVersionView[]> {
  authorize(actor, 'deadletters.read');
  const id = parseDeadLetterId(idParam);
  const [d] = await db().$queryRaw<{ sourceId: string; sensitive: boolean; paths: unknown }[]>`
    SELECT d.source_id AS "sourceId", d.sensitive, s.sensitive_paths AS paths FROM dead_letters d JOIN sources s ON s.id = d.source_id WHERE d.id = ${id}`;
  if (!d) throw notFound('No such dead letter');
  await findSource(actor, d.sourceId, 'deadletters.read').catch(() => {
    throw notFound('No such dead letter');
  });
  const rows = await db().deadLetterVersion.findMany({
    where: { deadLetterId: id },
    orderBy: { version: 'desc' },
    select: {
      id: true,
      version: true,
      payloadSha256: true,
      payloadSize: true,
      contentType: true,
      createdById: true,
      createdAt: true,
      diff: true,
      transform: true,
      items: { select: { taskId: true } },
    },
  });
  const policy = { sensitive: d.sensitive, paths: sensitivePathsOf(d.paths) };
  const users = await db().user.findMany({
    where: { id: { in: rows.map((r) => r.createdById).filter((x): x is string => !!x) } },
    select: { id: true, email: true },
  });
  const email = new Map(users.map((u) => [u.id, u.email]));
  return rows.map((r) => ({
    id: r.id.toString(),
    version: r.version,
    sha256: r.payloadSha256,
    size: r.payloadSize,
    contentType: r.contentType,
    createdBy: r.createdById ? (email.get(r.createdById) ?? null) : 'system',
    createdAt: r.createdAt.toISOString(),
    // Masked at write with the policy of its day; again with today's (a path named sensitive since).
    diff: maskJson(maskStoredDiff(r.diff, policy)),
    transform: r.transform,
    tasks: [...new Set(r.items.map((i) => i.taskId))],
  }));
}

export { sha256 };
