// The redrive rules' evaluation, run by the maintenance worker every few seconds: each enabled rule
// looks for its triggers (a wave's cluster once the rate alarm has been OK long enough; a cluster
// resolved with a fix version) and starts an ordinary redrive task for its author through
// startRedrive, so rate, canary, breaker, outcome window and four eyes all apply. Idempotent: a
// trigger is claimed once (redrive_rule_runs' unique key), so a wave is redriven once however many
// workers evaluate. A rule whose task tripped the breaker (or whose canary died) disables itself.
import type { RedriveRule } from '@/generated/prisma/client';
import { append } from '@/lib/audit';
import { auditActor, type SystemPrincipal } from '@/lib/auth';
import { MINUTE, systemClock, type Clock } from '@/lib/clock';
import { db, type Tx } from '@/lib/db';
import { AppError } from '@/lib/errors';
import { log } from '@/lib/log';
import { ACTIVE_STATUSES, startRedrive } from '@/lib/redrive';
import { BREAKER_REASON_PREFIX, CANARY_REASON_PREFIX } from '@/lib/redrive/breaker';
import { ruleAuthor } from './rules';

/** The rules' own decisions (disabling themselves) are audited as this system actor. */
export const RULES_ACTOR: SystemPrincipal = { system: true, label: 'redrive-rules' };
/** A claim whose start never finished (a crash in between) is looked at again after this long. */
const CLAIM_STALE_MS = 2 * MINUTE;

type Rule = RedriveRule & { source: { id: string; name: string; teamId: string } };

interface Trigger {
  key: string;
  clusterId: string;
  waveId: bigint | null;
  why: string;
}

export interface RulesEvaluation {
  started: string[];
  waiting: number;
  skipped: number;
  disabled: number;
}

/** Disable a rule, saying why, audited in the same transaction. False when it was disabled already. */
async function disableRule(tx: Tx, ruleId: string, reason: string, clock: Clock): Promise<boolean> {
  await tx.$executeRaw`SELECT 1 FROM redrive_rules WHERE id = ${ruleId}::uuid FOR UPDATE`;
  const rule = await tx.redriveRule.findUnique({ where: { id: ruleId }, include: { source: { select: { teamId: true } } } });
  if (!rule?.enabled) return false;
  const now = clock.now();
  await tx.redriveRule.update({
    where: { id: ruleId },
    data: { enabled: false, disabledReason: reason, disabledAt: now, lastResult: `disabled: ${reason}`, updatedAt: now },
  });
  await append(
    tx,
    {
      actor: auditActor(RULES_ACTOR),
      action: 'redrive_rule.disable',
      targetType: 'redrive_rule',
      targetId: ruleId,
      teamId: rule.source.teamId,
      sourceId: rule.sourceId,
      before: { enabled: true },
      after: { enabled: false, disabledReason: reason },
      result: reason,
    },
    clock,
  );
  return true;
}

/** Rules whose started task the worker paused for relapse (breaker or canary): disabled, with that reason. */
async function disableTripped(clock: Clock): Promise<number> {
  const tripped = await db().$queryRaw<{ run_id: bigint; rule_id: string; task_id: string; paused_reason: string }[]>`
    SELECT r.id AS run_id, r.rule_id::text, t.id::text AS task_id, t.paused_reason
    FROM redrive_rule_runs r JOIN redrive_tasks t ON t.id = r.task_id JOIN redrive_rules ru ON ru.id = r.rule_id
    WHERE r.state = 'started' AND t.status = 'paused'
      AND (t.paused_reason LIKE ${`${BREAKER_REASON_PREFIX}%`} OR t.paused_reason LIKE ${`${CANARY_REASON_PREFIX}%`})`;
  let disabled = 0;
  for (const t of tripped) {
    const reason = `its redrive task ${t.task_id} was stopped: ${t.paused_reason}`;
    const done = await db().$transaction(async (tx) => {
      await tx.redriveRuleRun.update({ where: { id: t.run_id }, data: { state: 'tripped', result: t.paused_reason } });
      return disableRule(tx, t.rule_id, reason, clock);
    });
    if (done) disabled++;
  }
  return disabled;
}

/** Claims left by a start that never finished: the task it made, if any, is recorded; else it is tried again. */
async function settleStaleClaims(now: Date): Promise<void> {
  const stale = await db().redriveRuleRun.findMany({ where: { state: 'claimed', createdAt: { lt: new Date(now.getTime() - CLAIM_STALE_MS) } } });
  for (const run of stale) {
    const task = await db().redriveTask.findFirst({
      where: { ruleId: run.ruleId, createdAt: { gte: run.createdAt }, selection: { path: ['cluster'], equals: run.clusterId ?? '' } },
      select: { id: true },
    });
    if (task) await db().redriveRuleRun.update({ where: { id: run.id }, data: { state: 'started', taskId: task.id } });
    else await db().redriveRuleRun.delete({ where: { id: run.id } });
  }
}

/** A wave's clusters, once the rate alarm has been OK for the rule's time since it ended. */
async function waveTriggers(rule: Rule, now: Date): Promise<Trigger[]> {
  const okSince = new Date(now.getTime() - (rule.okForSeconds ?? 0) * 1000);
  const rows = await db().$queryRaw<{ id: bigint; started_at: Date; ended_at: Date; dead_letters: number; cluster_id: string }[]>`
    SELECT w.id, w.started_at, w.ended_at, w.dead_letters, u.c::text AS cluster_id
    FROM rate_waves w
    CROSS JOIN LATERAL unnest(w.cluster_ids) WITH ORDINALITY AS u(c, ord)
    JOIN alarm_states a ON a.source_id = w.source_id AND a.kind = 'rate'
    WHERE w.source_id = ${rule.sourceId}::uuid AND w.ended_at IS NOT NULL AND w.ended_at >= ${rule.createdAt} AND w.ended_at <= ${okSince}
      AND a.state = 'OK' AND a.since <= ${okSince}
      AND NOT EXISTS (SELECT 1 FROM redrive_rule_runs r WHERE r.rule_id = ${rule.id}::uuid AND r.trigger_key = 'wave:' || w.id || ':' || u.c)
    ORDER BY w.id, u.ord`;
  return rows.map((w) => ({
    key: `wave:${w.id}:${w.cluster_id}`,
    clusterId: w.cluster_id,
    waveId: w.id,
    why: `the rate alarm has been OK for ${rule.okForSeconds} s after the wave of ${w.started_at.toISOString()} to ${w.ended_at.toISOString()} (${w.dead_letters} dead letters)`,
  }));
}

/** Clusters of the source resolved with a fix version since the rule exists, once per fix version. */
async function resolvedTriggers(rule: Rule): Promise<Trigger[]> {
  const rows = await db().$queryRaw<{ cluster_id: string; fix_version: string }[]>`
    SELECT o.cluster_id::text, o.fix_version FROM cluster_ownership o
    JOIN cluster_sources cs ON cs.cluster_id = o.cluster_id AND cs.source_id = ${rule.sourceId}::uuid
    WHERE o.status = 'resolved' AND o.fix_version IS NOT NULL AND o.updated_at >= ${rule.createdAt}
      AND NOT EXISTS (SELECT 1 FROM redrive_rule_runs r WHERE r.rule_id = ${rule.id}::uuid AND r.trigger_key = 'resolved:' || o.cluster_id || ':' || o.fix_version)
    ORDER BY o.updated_at, o.cluster_id`;
  return rows.map((r) => ({
    key: `resolved:${r.cluster_id}:${r.fix_version}`,
    clusterId: r.cluster_id,
    waveId: null,
    why: `the cluster was resolved with fix version ${r.fix_version}`,
  }));
}

async function note(rule: Rule, lastResult: string, extra: { lastRunAt?: Date; lastTaskId?: string } = {}): Promise<void> {
  if (rule.lastResult === lastResult && !extra.lastRunAt) return;
  await db().redriveRule.update({ where: { id: rule.id }, data: { lastResult, ...extra } });
  Object.assign(rule, { lastResult, ...extra });
}

type Fired = 'started' | 'waiting' | 'skipped' | 'taken' | 'disabled';

/** Start the trigger's redrive for the rule's author; one active task per source, so it may wait. */
async function fire(rule: Rule, t: Trigger, clock: Clock): Promise<Fired> {
  const now = clock.now();
  const active = await db().redriveTask.findFirst({ where: { sourceId: rule.sourceId, status: { in: ACTIVE_STATUSES } }, select: { id: true, status: true } });
  if (active) {
    await note(rule, `waiting: ${rule.source.name} has an active redrive task ${active.id} (${active.status})`);
    return 'waiting';
  }
  const claimed = await db().$executeRaw`
    INSERT INTO redrive_rule_runs (rule_id, trigger_key, wave_id, cluster_id, state, created_at)
    VALUES (${rule.id}::uuid, ${t.key}, ${t.waveId}, ${t.clusterId}::uuid, 'claimed', ${now}) ON CONFLICT DO NOTHING`;
  if (claimed === 0) return 'taken';
  const settle = (state: 'started' | 'skipped' | 'failed', result: string, taskId: string | null = null) =>
    db().redriveRuleRun.update({ where: { ruleId_triggerKey: { ruleId: rule.id, triggerKey: t.key } }, data: { state, result, taskId } });

  const author = await ruleAuthor(db(), rule.createdById, rule.source);
  if ('refused' in author) {
    await settle('failed', author.refused);
    const disabled = await db().$transaction((tx) => disableRule(tx, rule.id, author.refused, clock));
    return disabled ? 'disabled' : 'skipped';
  }
  try {
    const task = await startRedrive(
      author.actor,
      {
        selection: { cluster: t.clusterId, source: rule.source.name },
        ratePerSecond: rule.ratePerSecond,
        canary: rule.canary,
        reason: `Redrive rule "${rule.name}": ${t.why}`,
      },
      clock,
      { ruleId: rule.id, ruleName: rule.name },
    );
    const result = task.status === 'pending_approval' ? `started task ${task.id}, waiting for approval` : `started task ${task.id}`;
    await settle('started', result, task.id);
    await note(rule, result, { lastRunAt: now, lastTaskId: task.id });
    return 'started';
  } catch (e) {
    if (e instanceof AppError && e.code === 'conflict') {
      // Another start won the source in between: the rule waits, and tries this trigger again.
      await db().redriveRuleRun.delete({ where: { ruleId_triggerKey: { ruleId: rule.id, triggerKey: t.key } } });
      await note(rule, `waiting: ${rule.source.name} has an active redrive task`);
      return 'waiting';
    }
    if (e instanceof AppError && e.code === 'unprocessable') {
      await settle('skipped', e.message);
      await note(rule, `skipped: ${e.message}`, { lastRunAt: now });
      return 'skipped';
    }
    if (e instanceof AppError && (e.code === 'forbidden' || e.code === 'not_found')) {
      const reason = `its author may not redrive this: ${e.message}`;
      await settle('failed', reason);
      await db().$transaction((tx) => disableRule(tx, rule.id, reason, clock));
      return 'disabled';
    }
    // The infrastructure's failure: the claim goes, so the next cycle tries again.
    await db().redriveRuleRun.delete({ where: { ruleId_triggerKey: { ruleId: rule.id, triggerKey: t.key } } });
    throw e;
  }
}

export async function evaluateRedriveRules(clock: Clock = systemClock): Promise<RulesEvaluation> {
  const out: RulesEvaluation = { started: [], waiting: 0, skipped: 0, disabled: 0 };
  out.disabled += await disableTripped(clock);
  const now = clock.now();
  await settleStaleClaims(now);
  const rules: Rule[] = await db().redriveRule.findMany({
    where: { enabled: true },
    include: { source: { select: { id: true, name: true, teamId: true } } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  const busy = new Set<string>();
  for (const rule of rules) {
    if (busy.has(rule.sourceId)) continue;
    const triggers = rule.kind === 'after_wave' ? await waveTriggers(rule, now) : await resolvedTriggers(rule);
    for (const t of triggers) {
      let fired: Fired;
      try {
        fired = await fire(rule, t, clock);
      } catch (err) {
        log.error({ err, ruleId: rule.id, trigger: t.key }, 'redrive rule could not start its task; trying again next cycle');
        break;
      }
      if (fired === 'skipped') {
        out.skipped++;
        continue;
      }
      if (fired === 'started') out.started.push(rule.lastTaskId ?? t.key);
      if (fired === 'waiting') out.waiting++;
      if (fired === 'disabled') out.disabled++;
      // One active task per source: the source is done for this cycle.
      if (fired === 'started' || fired === 'waiting') busy.add(rule.sourceId);
      break;
    }
  }
  return out;
}
