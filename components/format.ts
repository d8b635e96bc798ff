// Small display helpers of the pages: ages, sizes, UTC times, dead-letter status badges.
import { formatDuration } from '@/lib/duration';

/** How long ago `iso` was, in the one duration format of every page ("59 s", "1 min", "1 h 5 min", "2 d 3 h"). */
export function age(iso: string, now = Date.now()): string {
  return formatDuration((now - Date.parse(iso)) / 1000);
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export const STATUS_BADGE: Record<string, string> = { open: 'bad', redriving: 'warn', redriven: 'good', archived: '', discarded: '', expired: 'warn' };

/** A time as the tables show it: `2026-01-31 12:00:00`, in UTC. */
export const utc = (d: Date): string => d.toISOString().replace('T', ' ').slice(0, 19);
