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

/** "3 acknowledged, 1 dead again of 4 sent": a segment's outcomes, the zero ones left out. */
export function outcomeWords(c: { sent: number; acknowledged: number; deadAgain: number; noDeathSeen: number; failed: number }): string {
  const parts = [
    c.acknowledged ? `${c.acknowledged} acknowledged` : null,
    c.noDeathSeen ? `${c.noDeathSeen} no death seen` : null,
    c.deadAgain ? `${c.deadAgain} dead again` : null,
    c.failed ? `${c.failed} undelivered` : null,
  ].filter(Boolean);
  return `${parts.length ? parts.join(', ') : 'no outcome yet'} of ${c.sent} sent`;
}
