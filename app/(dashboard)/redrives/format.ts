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

export const VERDICT_BADGE: Record<RedriveVerdict, string> = { worked: 'good', failing: 'bad', mixed: 'warn', 'no outcome yet': '' };
