// The traps of another application's BullMQ queue, from the options of the jobs "test connection"
// sees (BullMQ keeps a queue's defaultJobOptions in the application, not in Redis; they are merged
// into every job's stored options). Pure: lib/connectors/traps.ts has the shape.
import { duration, type Trap } from '../traps';

export type RemoveOnFail = boolean | number | { age?: number; count?: number } | undefined;

/** What a job's stored options say about its failures. */
export interface BullmqJobSeen {
  name: string;
  /** undefined: BullMQ's default, one attempt. */
  attempts: number | undefined;
  removeOnFail: RemoveOnFail;
}

/**
 * Failed jobs kept for less than this are a trap: a paused or broken import (its alarm fires after
 * minutes, someone fixes it within hours) still finds the failures of a day.
 */
export const FAILED_KEEP_MIN_SECONDS = 86_400;
/** Failed jobs kept in fewer than this: one burst of failures while the import is paused outruns it. */
export const FAILED_KEEP_MIN_COUNT = 1_000;

/** Why a removeOnFail setting drops failed jobs before Triage may have read them, or null when it keeps them long enough. */
export function removeOnFailDrops(r: RemoveOnFail): string | null {
  if (r === undefined || r === false) return null;
  if (r === true) return 'removeOnFail true deletes a failed job as it fails, so Triage never sees it';
  const { age, count } = typeof r === 'number' ? { age: undefined, count: r } : r;
  if (count !== undefined && count < FAILED_KEEP_MIN_COUNT) {
    return `removeOnFail keeps only the newest ${count} failed job${count === 1 ? '' : 's'}: a burst of more failures while the import is paused or down is deleted before Triage reads it`;
  }
  if (age !== undefined && age < FAILED_KEEP_MIN_SECONDS) {
    return `removeOnFail deletes failed jobs after ${duration(age)} (age): failures older than that, while the import is paused or down, are deleted before Triage reads them`;
  }
  return null;
}

const names = (jobs: BullmqJobSeen[]) => {
  const distinct = [...new Set(jobs.map((j) => j.name))];
  return (
    distinct
      .slice(0, 5)
      .map((n) => `"${n}"`)
      .join(', ') + (distinct.length > 5 ? ` and ${distinct.length - 5} more` : '')
  );
};

export function bullmqTraps(queue: string, jobs: BullmqJobSeen[]): Trap[] {
  if (jobs.length === 0) {
    return [
      {
        code: 'settings_not_readable',
        severity: 'info',
        message: `Settings not readable: BullMQ keeps a queue's default job options in the application, and "${queue}" has no job to read them from, so attempts and removeOnFail were not checked.`,
        fix: 'Test the connection again once the queue has jobs.',
      },
    ];
  }
  const traps: Trap[] = [];
  const once = jobs.filter((j) => (j.attempts ?? 1) === 1);
  if (once.length) {
    const byDefault = once.every((j) => j.attempts === undefined) ? ' (not set: BullMQ makes one attempt)' : '';
    traps.push({
      code: 'receive_limit_one',
      severity: 'warning',
      message: `${once.length} of the ${jobs.length} most recent jobs of "${queue}" (${names(once)}) have attempts 1${byDefault}: one network blip or one worker restart fails a good job for good.`,
      fix: "Give them attempts 3 or more, with a backoff, in the queue's defaultJobOptions or where the jobs are added.",
    });
  }
  const dropping = new Map<string, BullmqJobSeen[]>();
  for (const j of jobs) {
    const why = removeOnFailDrops(j.removeOnFail);
    if (why) dropping.set(why, [...(dropping.get(why) ?? []), j]);
  }
  for (const [why, seen] of dropping) {
    traps.push({
      code: 'failed_jobs_removed',
      severity: 'warning',
      message: `${seen.length} of the ${jobs.length} most recent jobs of "${queue}" (${names(seen)}): ${why}.`,
      fix: `Set removeOnFail to false, or keep failed jobs at least ${duration(FAILED_KEEP_MIN_SECONDS)} and ${FAILED_KEEP_MIN_COUNT} of them ({ age: ${FAILED_KEEP_MIN_SECONDS}, count: ${FAILED_KEEP_MIN_COUNT} } or more), in the queue's defaultJobOptions or where the jobs are added; Triage's removeAfterImport removes them once they are recorded.`,
    });
  }
  return traps;
}
