// Time ticks in UTC, so the server render and the browser's agree.
export function utcTick(iso: string, withDate: boolean): string {
  return withDate ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
}

// Steps an age axis ticks at, so its labels are whole units ("15 min", "6 h"), never "0.25 h".
const AGE_STEPS = [
  1,
  5,
  15,
  30,
  60,
  5 * 60,
  15 * 60,
  30 * 60,
  3600,
  2 * 3600,
  3 * 3600,
  6 * 3600,
  12 * 3600,
  86_400,
  2 * 86_400,
  7 * 86_400,
  14 * 86_400,
  30 * 86_400,
];

/** Ticks from 0 past `maxSeconds` at the smallest step that needs at most `most` intervals. */
export function ageTicks(maxSeconds: number, most = 4): number[] {
  const max = Math.max(1, Math.ceil(maxSeconds));
  const step = AGE_STEPS.find((s) => max / s <= most) ?? Math.ceil(max / most / 86_400) * 86_400;
  const ticks: number[] = [];
  for (let t = 0; t < max + step; t += step) ticks.push(t);
  return ticks;
}

// The design tokens of app/globals.css (SVG attributes take no CSS variables). Legends print each
// series' name in its colour, so every colour keeps 4.5:1 contrast on white.
export const SERIES_COLORS = { accent: '#2456d6', ok: '#2a7230', warn: '#8f5b00', bad: '#c62828', muted: '#5b6470' } as const;

export const REASON_COLORS: Record<string, string> = {
  MaxReceives: SERIES_COLORS.accent,
  Rejected: SERIES_COLORS.bad,
  Expired: SERIES_COLORS.warn,
  KeyParked: '#6a1b9a',
  RedriveLoop: '#00838f',
  Manual: SERIES_COLORS.muted,
};
