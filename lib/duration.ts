// Durations as people read and type them: "3 d 4 h" on the board and in notifications; "14d",
// "36h", "90m", "45s" or plain seconds on the command line.
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  if (m > 0) return `${m} min`;
  return `${s} s`;
}

const UNIT_SECONDS: Record<string, number> = { d: 86_400, h: 3600, m: 60, s: 1 };

/** Seconds in "14d", "1.5h", "90m", "45s" or "3600"; undefined when it is none of those. */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([dhms]?)\s*$/i.exec(text);
  if (!m) return undefined;
  return Math.round(Number(m[1]) * UNIT_SECONDS[(m[2] || 's').toLowerCase()]!);
}
