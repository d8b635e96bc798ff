// The traps of another application's Sidekiq: its dead set is capped (dead_max_jobs, 10,000 by
// default: each new death trims the oldest beyond it) and aged out (dead_timeout_in_seconds, six
// months), both set in the application's configuration, which Redis does not hold: the source says
// what they are (defaults: Sidekiq's). And jobs with `retry: 0` die at their first failure. Pure:
// lib/connectors/traps.ts has the shape.
import { duration, type Trap } from '../traps';

/** Under this many kept dead jobs, one burst of deaths while the import is paused outruns it (as for BullMQ's removeOnFail). */
export const DEAD_KEEP_MIN_COUNT = 1_000;
/** Dead jobs kept for less than this: a paused or broken import still finds the deaths of a day. */
export const DEAD_KEEP_MIN_SECONDS = 86_400;
/** The dead set this full (of dead_max_jobs) trims jobs Triage may not have read at the next burst. */
export const DEAD_FULL_SHARE = 0.8;

export interface SidekiqSeen {
  deadMaxJobs: number;
  deadTimeoutSeconds: number;
  /** Jobs in the dead set now. */
  dead: number;
  removeAfterImport: boolean;
  /** Classes of recent dead jobs that had `retry: 0` (no retry at all). */
  noRetryClasses: string[];
}

export function sidekiqTraps(where: string, s: SidekiqSeen): Trap[] {
  const traps: Trap[] = [
    {
      code: 'settings_not_readable',
      severity: 'info',
      message: `Sidekiq keeps dead_max_jobs and dead_timeout_in_seconds in the application's configuration, not in Redis: checked as this source states them (${s.deadMaxJobs} jobs, ${duration(s.deadTimeoutSeconds)}).`,
      fix: "Set this source's deadMaxJobs and deadTimeoutSeconds to the application's values if it changed Sidekiq's defaults.",
    },
  ];
  const fix = `Keep at least ${DEAD_KEEP_MIN_COUNT} dead jobs for at least ${duration(DEAD_KEEP_MIN_SECONDS)} (Sidekiq's dead_max_jobs and dead_timeout_in_seconds), or set this source to remove jobs after import so the dead set never fills.`;
  if (s.deadMaxJobs < DEAD_KEEP_MIN_COUNT) {
    traps.push({
      code: 'failed_jobs_removed',
      severity: 'warning',
      message: `${where}: dead_max_jobs ${s.deadMaxJobs} keeps only the newest ${s.deadMaxJobs} dead jobs: a burst of more deaths while the import is paused or down trims jobs before Triage reads them.`,
      fix,
    });
  } else if (!s.removeAfterImport && s.dead >= s.deadMaxJobs * DEAD_FULL_SHARE) {
    traps.push({
      code: 'failed_jobs_removed',
      severity: 'warning',
      message: `${where}: the dead set holds ${s.dead} of its dead_max_jobs ${s.deadMaxJobs}: each further death trims the oldest, and a burst while the import is paused trims jobs Triage has not read.`,
      fix,
    });
  }
  if (s.deadTimeoutSeconds < DEAD_KEEP_MIN_SECONDS) {
    traps.push({
      code: 'dlq_retention_not_longer',
      severity: 'warning',
      message: `${where}: dead_timeout_in_seconds ${s.deadTimeoutSeconds} (${duration(s.deadTimeoutSeconds)}) drops dead jobs before a paused or broken import is fixed.`,
      fix,
    });
  }
  if (s.noRetryClasses.length) {
    const names = s.noRetryClasses.slice(0, 5).join(', ') + (s.noRetryClasses.length > 5 ? ` and ${s.noRetryClasses.length - 5} more` : '');
    traps.push({
      code: 'receive_limit_one',
      severity: 'warning',
      message: `${where}: recent dead jobs of ${names} have retry 0: one network blip or one worker restart kills a good job at its first failure.`,
      fix: 'Give them retries (sidekiq_options retry: 3 or more), unless failing at once is the point.',
    });
  }
  return traps;
}
