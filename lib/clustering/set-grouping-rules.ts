// A source's grouping rules, owned by the lead of its team: what new dead letters of the
// source are grouped by on top of the fingerprint (grouping-rules.ts). A change raises the source's
// rule version (it keys the fingerprint memo) and applies to new arrivals at once; the open dead
// letters are regrouped only on request (regroup.ts). Audited with the rules before and after.
import { z } from 'zod';
import { Prisma } from '@/generated/prisma/client';
import { append } from '@/lib/audit';
import { auditActor, authorize, type Principal } from '@/lib/auth';
import { db } from '@/lib/db';
import { reasonSchema } from '@/lib/deadletters/decide';
import { findSource } from '@/lib/model/find-source';
import { groupingOf, groupingRulesSchema } from './grouping-rules';

export const setGroupingRulesInput = z
  .object({ rules: groupingRulesSchema.nullable().describe('null: no rules, the fingerprint alone'), reason: reasonSchema })
  .strict();
export type SetGroupingRulesInput = z.input<typeof setGroupingRulesInput>;

export const GroupingRulesView = z.object({ source: z.string(), version: z.int().describe('Raised by each change'), rules: groupingRulesSchema.nullable() });
export type GroupingRulesView = z.output<typeof GroupingRulesView>;

export async function getGroupingRules(actor: Principal, sourceRef: string): Promise<GroupingRulesView> {
  authorize(actor, 'deadletters.read');
  const s = await findSource(actor, sourceRef, 'deadletters.read');
  return { source: s.name, version: s.groupingVersion, rules: groupingOf(s.groupingRules, s.groupingVersion).rules };
}

export async function setGroupingRules(actor: Principal, sourceRef: string, input: SetGroupingRulesInput): Promise<GroupingRulesView> {
  authorize(actor, 'sources.grouping');
  const { rules, reason } = setGroupingRulesInput.parse(input);
  const effective = rules && (rules.groupBy.length || rules.variablePositions.length) ? rules : null;
  return db().$transaction(async (tx) => {
    const before = await findSource(actor, sourceRef, 'sources.grouping', tx);
    const updated = await tx.source.update({
      where: { id: before.id },
      data: { groupingRules: effective ?? Prisma.DbNull, groupingVersion: { increment: 1 } },
    });
    // A re-application under the old rules would regroup by rules no longer in force.
    await tx.regroupRun.updateMany({ where: { sourceId: before.id, status: 'running' }, data: { status: 'superseded', finishedAt: new Date() } });
    await append(tx, {
      actor: auditActor(actor),
      action: 'source.grouping',
      targetType: 'source',
      targetId: before.id,
      teamId: before.teamId,
      sourceId: before.id,
      reason,
      before: { version: before.groupingVersion, rules: groupingOf(before.groupingRules, before.groupingVersion).rules },
      after: { version: updated.groupingVersion, rules: effective },
    });
    return { source: updated.name, version: updated.groupingVersion, rules: effective };
  });
}
