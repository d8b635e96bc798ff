// The runbook's decision for one source right now (poison or outage, seed 004 §9): the same
// classification the alarm evaluation gives its alarms (classify over the last hour's arrivals, with
// the source's rate thresholds), and the label the alarms keep when nothing arrived this hour.
// recentArrivals first folds the pending arrival counts, as the evaluation does: that moves counts
// between two tables and changes no figure.
import { z } from 'zod';
import { systemClock, type Clock } from '@/lib/clock';
import { ERROR_CLASSES } from '@/lib/model/error-classes';
import type { Principal } from '@/lib/auth';
import { findSource } from '@/lib/model/find-source';
import { isoTime } from '@/lib/wire';
import { recentArrivals } from './evaluate-alarms';
import { AlarmView, listAlarmStates } from './list-alarms';
import { classify, HINTS, keptLabel, type AlarmLabel } from '@/lib/model/alarm-rules';

export const EXPLANATION_BASES = ['arrivals of the last hour', 'kept from the rate alarm', 'nothing arrived'] as const;

export const AlarmExplanation = z.object({
  source: z.object({ id: z.uuid(), name: z.string() }),
  label: z
    .string()
    .nullable()
    .describe('outage, outage, errors stopped, poison, probable outage, wave, mixed causes, probable poison; null: nothing to decide'),
  hint: z.string().nullable().describe("The runbook's step for the label"),
  basis: z.enum(EXPLANATION_BASES).describe('What the label was read from'),
  classCounts: z.record(z.enum(ERROR_CLASSES), z.int()).describe("The last hour's dead letters by what their errors say"),
  dominantClusterId: z.uuid().nullable().describe('The cluster most of them belong to'),
  dominantShare: z.number().describe('Its share of the last hour, 0 to 1'),
  raised: z.array(AlarmView).describe('Alarms not at OK, the raised ones first'),
  at: isoTime,
});
export type AlarmExplanation = z.infer<typeof AlarmExplanation>;

export async function explainAlarm(actor: Principal, sourceRef: string, clock: Clock = systemClock): Promise<AlarmExplanation> {
  const source = await findSource(actor, sourceRef, 'deadletters.read');
  const now = clock.now();
  const [arrivals, states] = await Promise.all([recentArrivals(now), listAlarmStates(actor, { sourceId: source.id })]);
  const recent = arrivals.get(source.id);
  const c = recent ? classify(recent, { pending: source.alarmRatePending, alarm: source.alarmRateAlarm }) : null;
  const kept = keptLabel(states.find((s) => s.kind === 'rate')?.label ?? null);
  const label = c?.label ?? kept;
  return {
    source: { id: source.id, name: source.name },
    label,
    hint: label ? (HINTS[label as AlarmLabel] ?? null) : null,
    basis: c ? 'arrivals of the last hour' : kept ? 'kept from the rate alarm' : 'nothing arrived',
    classCounts: c?.classCounts ?? { transient: 0, permanent: 0, unknown: 0 },
    dominantClusterId: c?.dominantClusterId ?? null,
    dominantShare: c?.dominantShare ?? 0,
    raised: states.filter((s) => s.state !== 'OK'),
    at: now.toISOString(),
  };
}
