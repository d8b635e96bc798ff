// Badges of the redrive pages.
import type { RedriveTaskView, RedriveVerdict } from '@/lib/redrive';

export const STATUS_BADGE: Record<RedriveTaskView['status'], string> = {
  pending_approval: 'warn',
  queued: '',
  running: 'good',
  paused: 'warn',
  completed: 'good',
  cancelled: '',
  failed: 'bad',
};

/** Everything sent, some still inside their outcome window: running, awaiting outcomes. */
export function awaitingOutcomes(t: Pick<RedriveTaskView, 'status' | 'counts'>): boolean {
  return t.status === 'running' && t.counts.pending === 0 && t.counts.awaitingOutcome > 0;
}

/** A window or a time left, in the largest whole unit that reads well: "10 min", "90 s", "1 h 30 min". */
export function describeSeconds(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 120) return `${s} s`;
  if (s < 7200) return s % 60 === 0 || s >= 600 ? `${Math.round(s / 60)} min` : `${Math.floor(s / 60)} min ${s % 60} s`;
  const m = Math.round(s / 60);
  return m % 60 === 0 ? `${m / 60} h` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

export const VERDICT_BADGE: Record<RedriveVerdict, string> = { worked: 'good', failing: 'bad', mixed: 'warn', 'no outcome yet': '' };
