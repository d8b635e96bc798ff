// Small display helpers of the pages: ages, sizes, UTC times, dead-letter status badges.
export function age(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export const STATUS_BADGE: Record<string, string> = { open: 'bad', redriving: 'warn', redriven: 'good', archived: '', discarded: '', expired: 'warn' };

/** A time as the tables show it: `2026-01-31 12:00:00`, in UTC. */
export const utc = (d: Date): string => d.toISOString().replace('T', ' ').slice(0, 19);
