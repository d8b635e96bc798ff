// Time ticks in UTC, so the server render and the browser's agree.
export function utcTick(iso: string, withDate: boolean): string {
  return withDate ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
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
