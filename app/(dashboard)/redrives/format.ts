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

export const VERDICT_BADGE: Record<RedriveVerdict, string> = { worked: 'good', failing: 'bad', mixed: 'warn', 'no outcome yet': '' };
