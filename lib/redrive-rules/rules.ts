// Redrive rules of a source (docs/design.md "Redrive rules"): a lead's standing order to
// start an ordinary redrive task for them, after a wave or when a cluster is resolved with a fix
// version. Create, update, enable, disable and delete are audited in their own transaction.
import { z } from 'zod';
import type { RedriveRule } from '@/generated/prisma/client';
import { append } from '@/lib/audit';
import { auditActor, authorize, isSystem, scopeFor, type Actor, type Principal } from '@/lib/auth';
import { isRole } from '@/lib/auth/permissions';
import { systemClock, type Clock } from '@/lib/clock';
import { db, type Tx } from '@/lib/db';
import { changingSomething, isoTime, listOf } from '@/lib/wire';
import { notFound, unprocessable, AppError } from '@/lib/errors';
import { MAX_RATE } from '@/lib/redrive/start-redrive';
import { findSource } from '@/lib/model/find-source';

import { RULE_KINDS, type RuleKind } from '@/lib/enums';

export { RULE_KINDS, type RuleKind } from '@/lib/enums';

/** How long the rate alarm must have been OK after a wave: 10 s (demos, tests) to a day. */
export const OK_FOR_SECONDS = { min: 10, max: 86_400 } as const;

const fields = {
  name: z.string().trim().min(1).max(100),
  okForSeconds: z
    .number()
    .int()
    .min(OK_FOR_SECONDS.min)
    .max(OK_FOR_SECONDS.max)
    .describe('after_wave: seconds the rate alarm must have been OK after the wave'),
  ratePerSecond: z.number().int().min(1).max(MAX_RATE),
  canary: z.boolean(),
  enabled: z.boolean(),
};

export const createRuleInput = z
  .object({
    name: fields.name,
    kind: z.enum(RULE_KINDS),
    okForSeconds: fields.okForSeconds.optional(),
    ratePerSecond: fields.ratePerSecond.default(10),
    canary: fields.canary.default(true),
    enabled: fields.enabled.default(true),
    /** Only when the system (the CLI, the seed) creates it: the lead it acts for. */
    author: z.string().trim().email().max(254).optional().describe('CLI and seed only: the e-mail of the lead the rule acts for'),
  })
  .strict()
  .refine((r) => r.kind !== 'after_wave' || r.okForSeconds !== undefined, { message: 'after_wave needs okForSeconds', path: ['okForSeconds'] })
  .refine((r) => r.kind !== 'on_resolved' || r.okForSeconds === undefined, { message: 'okForSeconds goes with after_wave', path: ['okForSeconds'] });
export type CreateRuleInput = z.input<typeof createRuleInput>;

export const updateRuleInput = changingSomething(
  z
    .object({
      name: fields.name,
      okForSeconds: fields.okForSeconds,
      ratePerSecond: fields.ratePerSecond,
      canary: fields.canary,
      enabled: fields.enabled,
    })
    .partial()
    .strict(),
);
export type UpdateRuleInput = z.input<typeof updateRuleInput>;

export const RedriveRuleView = z.object({
  id: z.uuid(),
  source: z.string(),
  name: z.string(),
  kind: z
    .enum(RULE_KINDS)
    .describe(
      'after_wave: once the rate alarm has been OK for okForSeconds after a wave, redrive each of its clusters; on_resolved: redrive a cluster resolved with a fix version',
    ),
  enabled: z.boolean(),
  okForSeconds: z.int().nullable(),
  ratePerSecond: z.int(),
  canary: z.boolean(),
  author: z.string().describe('The lead the rule acts for: the requester of every task it starts'),
  disabledReason: z.string().nullable().describe('Why it is disabled: by whom, or the task that tripped the breaker'),
  disabledAt: isoTime.nullable(),
  lastRunAt: isoTime.nullable(),
  lastTaskId: z.uuid().nullable().describe('The last redrive task it started'),
  lastResult: z.string().nullable().describe('What its last evaluation did: started, waiting for an active task, skipped (nothing open)'),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type RedriveRuleView = z.infer<typeof RedriveRuleView>;
export const RedriveRuleListView = listOf('rules', RedriveRuleView);

type RuleRow = RedriveRule & { author: { email: string }; source: { name: string } };

export function ruleView(r: RuleRow): RedriveRuleView {
  return {
    id: r.id,
    source: r.source.name,
    name: r.name,
    kind: r.kind as RuleKind,
    enabled: r.enabled,
    okForSeconds: r.okForSeconds,
    ratePerSecond: r.ratePerSecond,
    canary: r.canary,
    author: r.author.email,
    disabledReason: r.disabledReason,
    disabledAt: r.disabledAt?.toISOString() ?? null,
    lastRunAt: r.lastRunAt?.toISOString() ?? null,
    lastTaskId: r.lastTaskId,
    lastResult: r.lastResult,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

const WITH = { author: { select: { email: true } }, source: { select: { name: true } } } as const;

/** What an audit event keeps of a rule: its settings, not its run state. */
function settings(r: Pick<RedriveRule, 'name' | 'kind' | 'enabled' | 'okForSeconds' | 'ratePerSecond' | 'canary'>) {
  return { name: r.name, kind: r.kind, enabled: r.enabled, okForSeconds: r.okForSeconds, ratePerSecond: r.ratePerSecond, canary: r.canary };
}

/** The audit event of a change to rule `ruleId`, on its source: what it was and what it is now. */
function auditRule(
  tx: Tx,
  actor: Principal,
  action: string,
  ruleId: string,
  source: { id: string; teamId: string },
  change: { before?: unknown; after?: unknown },
  clock: Clock,
) {
  return append(
    tx,
    { actor: auditActor(actor), action, targetType: 'redrive_rule', targetId: ruleId, teamId: source.teamId, sourceId: source.id, ...change },
    clock,
  );
}

/** A source's rules, for whoever may read its dead letters. */
export async function listRedriveRules(actor: Principal, sourceRef: string): Promise<RedriveRuleView[]> {
  authorize(actor, 'deadletters.read');
  const source = await findSource(actor, sourceRef, 'deadletters.read');
  const rules = await db().redriveRule.findMany({ where: { sourceId: source.id }, include: WITH, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rules.map(ruleView);
}

/**
 * The person a rule acts for: an enabled user who may redrive and keep rules on the source (a lead
 * of its team, or an admin). Null, with why, when that is no longer so.
 */
export async function ruleAuthor(tx: Tx, userId: string, source: { teamId: string }): Promise<{ actor: Actor } | { refused: string }> {
  const u = await tx.user.findUnique({ where: { id: userId }, select: { id: true, email: true, role: true, teamId: true, disabled: true } });
  if (!u || u.disabled) return { refused: `its author ${u?.email ?? '(deleted)'} is disabled` };
  if (!isRole(u.role)) return { refused: `its author ${u.email} has no role` };
  const rules = scopeFor(u.role, 'redrive.rules');
  const redrive = scopeFor(u.role, 'deadletters.redrive');
  const onSource = (s: string | undefined) => s === 'all' || (s === 'team' && u.teamId === source.teamId);
  if (!onSource(rules) || !onSource(redrive)) return { refused: `its author ${u.email} may no longer keep redrive rules on this source` };
  return { actor: { userId: u.id, email: u.email, role: u.role, teamId: u.teamId, via: 'rule' } };
}

async function authorFor(tx: Tx, actor: Principal, source: { teamId: string }, email: string | undefined): Promise<Actor> {
  if (!isSystem(actor)) {
    if (email && email.toLowerCase() !== actor.email.toLowerCase()) throw unprocessable('A rule acts for the person who creates it', { field: 'author' });
    return actor;
  }
  if (!email) throw unprocessable('A rule created by the system names the lead it acts for (author)', { field: 'author' });
  const u = await tx.user.findFirst({ where: { email: { equals: email, mode: 'insensitive' } }, select: { id: true } });
  if (!u) throw unprocessable(`No user "${email}"`, { field: 'author' });
  const a = await ruleAuthor(tx, u.id, source);
  if ('refused' in a) throw unprocessable(`${email} may not keep redrive rules on this source`, { field: 'author' });
  return a.actor;
}

function duplicateName(e: unknown, name: string): never {
  if (e && typeof e === 'object' && 'code' in e && (e as { code: string }).code === 'P2002') {
    throw new AppError('conflict', `The source already has a rule named "${name}"`, { field: 'name' });
  }
  throw e;
}

/** Create a rule on the source; the creator (or, for the system, `author`) is who it acts for. */
export async function createRedriveRule(actor: Principal, sourceRef: string, input: CreateRuleInput, clock: Clock = systemClock): Promise<RedriveRuleView> {
  authorize(actor, 'redrive.rules');
  const i = createRuleInput.parse(input);
  return db()
    .$transaction(async (tx) => {
      const source = await findSource(actor, sourceRef, 'redrive.rules', tx);
      const author = await authorFor(tx, actor, source, i.author);
      const now = clock.now();
      const rule = await tx.redriveRule.create({
        data: {
          sourceId: source.id,
          name: i.name,
          kind: i.kind,
          enabled: i.enabled,
          okForSeconds: i.okForSeconds ?? null,
          ratePerSecond: i.ratePerSecond,
          canary: i.canary,
          createdById: author.userId,
          enabledById: i.enabled && !isSystem(actor) ? actor.userId : null,
          createdAt: now,
          updatedAt: now,
        },
        include: WITH,
      });
      await auditRule(tx, actor, 'redrive_rule.create', rule.id, source, { after: { ...settings(rule), author: author.email } }, clock);
      return ruleView(rule);
    })
    .catch((e: unknown) => duplicateName(e, i.name));
}

async function lockRule(tx: Tx, actor: Principal, sourceRef: string, ruleId: string) {
  const source = await findSource(actor, sourceRef, 'redrive.rules', tx);
  if (!z.uuid().safeParse(ruleId).success) throw notFound('No such rule');
  await tx.$executeRaw`SELECT 1 FROM redrive_rules WHERE id = ${ruleId}::uuid FOR UPDATE`;
  const rule = await tx.redriveRule.findFirst({ where: { id: ruleId, sourceId: source.id }, include: WITH });
  if (!rule) throw notFound('No such rule');
  return { source, rule };
}

/**
 * Change a rule's settings, or enable / disable it (audited as redrive_rule.enable / .disable when
 * that is the change). Enabling clears why it was disabled; it keeps acting for its author.
 */
export async function updateRedriveRule(
  actor: Principal,
  sourceRef: string,
  ruleId: string,
  input: UpdateRuleInput,
  clock: Clock = systemClock,
): Promise<RedriveRuleView> {
  authorize(actor, 'redrive.rules');
  const i = updateRuleInput.parse(input);
  return db()
    .$transaction(async (tx) => {
      const { source, rule } = await lockRule(tx, actor, sourceRef, ruleId);
      if (i.okForSeconds !== undefined && rule.kind !== 'after_wave') throw unprocessable('okForSeconds goes with after_wave', { field: 'okForSeconds' });
      const now = clock.now();
      const toggled = i.enabled !== undefined && i.enabled !== rule.enabled;
      const updated = await tx.redriveRule.update({
        where: { id: rule.id },
        data: {
          ...(i.name !== undefined ? { name: i.name } : {}),
          ...(i.okForSeconds !== undefined ? { okForSeconds: i.okForSeconds } : {}),
          ...(i.ratePerSecond !== undefined ? { ratePerSecond: i.ratePerSecond } : {}),
          ...(i.canary !== undefined ? { canary: i.canary } : {}),
          ...(toggled
            ? i.enabled
              ? { enabled: true, disabledReason: null, disabledAt: null, enabledById: isSystem(actor) ? null : actor.userId }
              : { enabled: false, disabledReason: `Disabled by ${auditActor(actor).email}`, disabledAt: now }
            : {}),
          updatedAt: now,
        },
        include: WITH,
      });
      const others = Object.keys(i).filter((k) => k !== 'enabled' && i[k as keyof typeof i] !== undefined);
      const action = toggled && others.length === 0 ? (i.enabled ? 'redrive_rule.enable' : 'redrive_rule.disable') : 'redrive_rule.update';
      await auditRule(tx, actor, action, rule.id, source, { before: settings(rule), after: settings(updated) }, clock);
      return ruleView(updated);
    })
    .catch((e: unknown) => duplicateName(e, i.name ?? ''));
}

/** Delete a rule; the tasks it started stay, without their origin. */
export async function deleteRedriveRule(actor: Principal, sourceRef: string, ruleId: string, clock: Clock = systemClock): Promise<void> {
  authorize(actor, 'redrive.rules');
  await db().$transaction(async (tx) => {
    const { source, rule } = await lockRule(tx, actor, sourceRef, ruleId);
    await tx.redriveRule.delete({ where: { id: rule.id } });
    await auditRule(tx, actor, 'redrive_rule.delete', rule.id, source, { before: { ...settings(rule), author: rule.author.email } }, clock);
  });
}
