// Poison or outage of one cluster, from the class of its latest arrival (clusters.error_class) and
// when it arrived: the inbox's badge and the redrive page's warning say what the source's alarms say.
import { z } from 'zod';
import { env } from '@/lib/env';
import type { ErrorClass } from '@/lib/model/error-classes';
import { RULES } from '@/lib/model/alarm-rules';

export const CLUSTER_VERDICTS = ['outage', 'outage, errors stopped', 'poison', 'unknown'] as const;
export const ClusterVerdict = z
  .enum(CLUSTER_VERDICTS)
  .describe('outage: its errors are transient and still arrive (do not redrive); outage, errors stopped: none for two rate windows; poison: permanent errors');
export type ClusterVerdict = z.infer<typeof ClusterVerdict>;

/** How long an outage's errors must have stopped before it is no longer said to be arriving. */
export function outageQuietMs(): number {
  return RULES.outageQuietWindows * env().ALARM_RATE_WINDOW_SECONDS * 1000;
}

export function clusterVerdict(errorClass: ErrorClass, lastSeen: Date, now: Date): ClusterVerdict {
  if (errorClass === 'permanent') return 'poison';
  if (errorClass !== 'transient') return 'unknown';
  return now.getTime() - lastSeen.getTime() < outageQuietMs() ? 'outage' : 'outage, errors stopped';
}
