// A source's policy: retention, age deadline, retry budget, redrive limits. Owned by the lead of the
// source's team (and admins); every change is audited with its before and after.
import { z } from 'zod';
import { db } from '@/lib/db';
import { append } from '@/lib/audit';
import { auditActor, authorize, isSystem, scopeFor, type Principal } from '@/lib/auth';
import { AppError, unprocessable } from '@/lib/errors';
import { assertOutboundUrl } from '@/lib/outbound/outbound-url';
import { redactUrl } from '@/lib/outbound/redact-url';
import { findSource } from '@/lib/model/find-source';
import { sensitivePathsOf, sensitivePathsSchema } from '@/lib/masking';
import { recomputeProgress } from '@/lib/masking/recompute-verdicts';
import { formatDuration } from '@/lib/duration';
import { systemClock, type Clock } from '@/lib/clock';
import { SourceView } from './source-view';

const DAY_S = 86_400;

export const policyInput = z
  .object({
    retentionSeconds: z
      .number()
      .int()
      .min(3600)
      .max(365 * DAY_S),
    ageDeadlineSeconds: z
      .number()
      .int()
      .min(60)
      .max(365 * DAY_S),
    maxReceives: z.number().int().min(1).max(1000),
    visibilityTimeoutMs: z
      .number()
      .int()
      .min(1000)
      .max(12 * 3600_000),
    maxRedrives: z.number().int().min(0).max(100),
    approvalThreshold: z.number().int().min(1).max(10_000_000),
    redriveUrl: z
      .string()
      .trim()
      .url()
      .refine((u) => /^https?:\/\//i.test(u), 'must start with http:// or https://')
      .nullable(),
    redriveSecret: z.string().min(16, 'at least 16 characters').max(256).nullable(),
    // Dead letters in 5 minutes that make the rate alarm PENDING, and ALARM.
    alarmRatePending: z.number().int().min(1).max(1_000_000),
    alarmRateAlarm: z.number().int().min(2).max(1_000_000),
    // JSON paths whose values are masked for roles without payload.reveal; a change recomputes the
    // masking verdicts of the source's dead letters (lib/masking/recompute-verdicts.ts).
    sensitivePaths: sensitivePathsSchema,
    // Edits and transforms of this many dead letters or more wait for a second person.
    editApprovalThreshold: z.number().int().min(1).max(10_000_000),
    // The sources (by name) that may redrive into this one; [] allows none but itself.
    redriveAllowedFrom: z.array(z.string().trim().min(1).max(200)).max(100),
  })
  .partial()
  .strict();

export type PolicyInput = z.input<typeof policyInput>;

export const PolicyWarning = z.object({ field: z.string(), message: z.string() });
export type PolicyWarning = z.infer<typeof PolicyWarning>;

const POLICY_FIELDS = [
  'retentionSeconds',
  'ageDeadlineSeconds',
  'maxReceives',
  'visibilityTimeoutMs',
  'maxRedrives',
  'approvalThreshold',
  'redriveUrl',
  'alarmRatePending',
  'alarmRateAlarm',
  'editApprovalThreshold',
] as const;

type PolicyRow = { [K in (typeof POLICY_FIELDS)[number]]: K extends 'redriveUrl' ? string | null : number } & {
  redriveSecret: string | null;
  redriveAllowedFrom?: string[];
};

/** A source's policy: its fields as SourceView has them, but those the policy page words more fully, and the sources by name. */
export const PolicyView = SourceView.pick({
  id: true,
  name: true,
  retentionSeconds: true,
  ageDeadlineSeconds: true,
  maxReceives: true,
  visibilityTimeoutMs: true,
  maxRedrives: true,
  approvalThreshold: true,
  editApprovalThreshold: true,
  redriveSecretSet: true,
  sensitivePaths: true,
}).extend({
  redriveUrl: z.string().nullable().describe("Whole for the source's owners (who change it); scheme and host for others"),
  alarmRatePending: z.int().describe('Dead letters in 5 minutes that make the rate alarm PENDING'),
  alarmRateAlarm: z.int().describe('Dead letters in 5 minutes that make the rate alarm ALARM (a wave)'),
  redriveAllowedFrom: z.array(z.string()).describe('Sources (by name) that may redrive into this one'),
});
export type PolicyView = z.infer<typeof PolicyView>;
/** PATCH /api/v1/sources/{source}/policy. */
export const PolicyAnswer = z.object({ source: PolicyView, warnings: z.array(PolicyWarning) });
/** GET /api/v1/sources/{source}/policy: also how far the recomputation of masking verdicts is after a change of paths. */
export const PolicyReadView = PolicyAnswer.extend({
  maskingRecompute: z.object({ done: z.boolean(), remaining: z.int(), capped: z.boolean().describe('remaining is a lower bound') }),
});

/** What a client may see of a policy: the redrive secret only as "set or not". */
export function policyView(s: PolicyRow & { id: string; name: string; sensitivePaths?: unknown }, allowedFrom: string[] = []): PolicyView {
  const view: Record<string, unknown> = { id: s.id, name: s.name };
  for (const f of POLICY_FIELDS) view[f] = s[f];
  view.redriveSecretSet = s.redriveSecret !== null;
  view.sensitivePaths = sensitivePathsOf(s.sensitivePaths);
  view.redriveAllowedFrom = allowedFrom;
  return view as PolicyView;
}

/** Source ids to names, in name order (a removed source drops out). */
async function sourceNames(ids: string[] | undefined): Promise<string[]> {
  if (!ids?.length) return [];
  const rows = await db().source.findMany({ where: { id: { in: ids } }, select: { name: true }, orderBy: { name: 'asc' } });
  return rows.map((r) => r.name);
}

// A retry loop that runs this close to the retention leaves dead letters almost no time to decide.
const RETRY_LOOP_WARN_SHARE = 0.5;

/**
 * Refusals (422) and warnings for a merged policy. The retry loop (max receives × visibility
 * timeout) runs on the original enqueue clock, which is also the stricter expiry clock: a loop as
 * long as the retention parks messages that have already expired (seed 004, "the retention trap").
 */
export function checkPolicy(p: PolicyRow): PolicyWarning[] {
  if (p.alarmRateAlarm <= p.alarmRatePending) {
    throw unprocessable('The rate alarm threshold must be above its pending threshold', { field: 'alarmRateAlarm' });
  }
  if (p.ageDeadlineSeconds >= p.retentionSeconds) {
    throw unprocessable('The age deadline must be shorter than the retention, or dead letters expire before anyone has to decide them', {
      field: 'ageDeadlineSeconds',
    });
  }
  const loopSeconds = (p.maxReceives * p.visibilityTimeoutMs) / 1000;
  if (loopSeconds >= p.retentionSeconds) {
    throw unprocessable(
      `Max receives × visibility timeout (${formatDuration(loopSeconds)}) reaches the retention (${formatDuration(p.retentionSeconds)}): messages would expire before they are dead-lettered`,
      { field: 'maxReceives' },
    );
  }
  const warnings: PolicyWarning[] = [];
  if (p.maxReceives === 1) warnings.push({ field: 'maxReceives', message: 'Max receives 1: one network blip parks a good message' });
  if (loopSeconds >= p.retentionSeconds * RETRY_LOOP_WARN_SHARE) {
    warnings.push({
      field: 'maxReceives',
      message: `Max receives × visibility timeout (${formatDuration(loopSeconds)}) approaches the retention (${formatDuration(p.retentionSeconds)}): dead letters arrive with little time left`,
    });
  }
  return warnings;
}

/**
 * Change a source's policy. A new retention re-dates the expiry of its open dead letters in the
 * same transaction, so lengthening it is how a lead saves dead letters the SLA board says are
 * about to expire.
 */
export async function updateSourcePolicy(actor: Principal, sourceRef: string, input: PolicyInput, clock: Clock = systemClock) {
  authorize(actor, 'sources.policy');
  const patch = policyInput.parse(input);
  if (Object.keys(patch).length === 0) throw unprocessable('Nothing to change');
  if (patch.redriveUrl) await assertOutboundUrl(patch.redriveUrl, 'redriveUrl');
  // A large backlog makes the re-dating UPDATE long; the default 5 s would cut it off.
  return db().$transaction(
    async (tx) => {
      const before = await findSource(actor, sourceRef, 'sources.policy', tx);
      const merged: PolicyRow = { ...before, ...patch };
      const warnings = checkPolicy(merged);
      const changedBefore: Record<string, unknown> = {};
      const changedAfter: Record<string, unknown> = {};
      for (const f of POLICY_FIELDS) {
        if (f in patch && patch[f] !== before[f]) {
          // A redrive URL may carry a token: the trail keeps its scheme and host (lib/outbound/redact-url.ts).
          changedBefore[f] = f === 'redriveUrl' ? redactUrl(before[f]) : before[f];
          changedAfter[f] = f === 'redriveUrl' ? redactUrl(merged[f]) : merged[f];
        }
      }
      if ('redriveSecret' in patch && patch.redriveSecret !== before.redriveSecret) {
        changedBefore.redriveSecret = before.redriveSecret === null ? null : 'set';
        changedAfter.redriveSecret = patch.redriveSecret === null ? null : before.redriveSecret === null ? 'set' : 'replaced';
      }
      const pathsBefore = sensitivePathsOf(before.sensitivePaths);
      const pathsChanged = patch.sensitivePaths !== undefined && JSON.stringify(patch.sensitivePaths) !== JSON.stringify(pathsBefore);
      if (pathsChanged) {
        changedBefore.sensitivePaths = pathsBefore;
        changedAfter.sensitivePaths = patch.sensitivePaths;
      }
      const { redriveAllowedFrom: allowNames, ...columns } = patch;
      let allowIds: string[] | undefined;
      if (allowNames) {
        const found = await tx.source.findMany({ where: { name: { in: allowNames } }, select: { id: true, name: true } });
        const missing = allowNames.filter((n) => !found.some((f) => f.name === n));
        if (missing.length) throw unprocessable(`No source ${missing.map((m) => `"${m}"`).join(', ')}`, { field: 'redriveAllowedFrom' });
        allowIds = found
          .filter((f) => f.id !== before.id)
          .map((f) => f.id)
          .sort();
        const was = [...(before.redriveAllowedFrom ?? [])].sort();
        if (JSON.stringify(was) !== JSON.stringify(allowIds)) {
          changedBefore.redriveAllowedFrom = await sourceNames(was);
          changedAfter.redriveAllowedFrom = found
            .filter((f) => f.id !== before.id)
            .map((f) => f.name)
            .sort();
        }
      }
      // New paths: every stored verdict of the source is recomputed from the first id on, and counts
      // as masked until then (the maintenance worker's masking.recompute job).
      const source = await tx.source.update({
        where: { id: before.id },
        data: { ...columns, ...(allowIds ? { redriveAllowedFrom: allowIds } : {}), ...(pathsChanged ? { maskingRecomputeFrom: 0n } : {}) },
      });
      let redated = 0;
      if ('retentionSeconds' in changedAfter) {
        redated = await tx.$executeRaw`
          UPDATE dead_letters SET expires_at = LEAST(dead_at, COALESCE(enqueued_at, dead_at)) + make_interval(secs => ${source.retentionSeconds})
          WHERE source_id = ${source.id}::uuid AND status = 'open'`;
      }
      if (Object.keys(changedAfter).length > 0) {
        await append(
          tx,
          {
            actor: auditActor(actor),
            action: 'source.policy.update',
            targetType: 'source',
            targetId: source.id,
            sourceId: source.id,
            teamId: source.teamId,
            before: changedBefore,
            after: changedAfter,
            ...(redated ? { count: redated } : {}),
            result: warnings.length ? `saved with ${warnings.length} warning(s)` : 'saved',
          },
          clock,
        );
      }
      return { source: policyView(source, await sourceNames(source.redriveAllowedFrom)), warnings, redated };
    },
    { timeout: 120_000 },
  );
}

/** The policy of a source the actor may read (support sees it; only its owners change it). */
export async function getSourcePolicy(actor: Principal, sourceRef: string) {
  const source = await findSource(actor, sourceRef, 'deadletters.read');
  // Only the source's owners, who change it, read its redrive URL whole; others see scheme and host.
  const view = policyView(source, await sourceNames(source.redriveAllowedFrom));
  const scope = isSystem(actor) ? 'all' : scopeFor(actor.role, 'sources.policy');
  if (!(scope === 'all' || (scope === 'team' && !isSystem(actor) && actor.teamId === source.teamId))) view.redriveUrl = redactUrl(view.redriveUrl);
  return { source: view, warnings: checkPolicySafe(source), maskingRecompute: await recomputeProgress(source.id) };
}

function checkPolicySafe(p: PolicyRow): PolicyWarning[] {
  try {
    return checkPolicy(p);
  } catch (e) {
    // A policy saved before a rule existed may break it: show it as a warning, not a broken page.
    if (!(e instanceof AppError)) throw e;
    return [{ field: String(e.details?.field ?? 'policy'), message: e.message }];
  }
}
