// Time ticks in UTC, so the server render and the browser's agree.
export function utcTick(iso: string, withDate: boolean): string {
  return withDate ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
}

export const REASON_COLORS: Record<string, string> = {
  MaxReceives: '#2456d6',
  Rejected: '#c62828',
  Expired: '#b26a00',
  KeyParked: '#6a1b9a',
  RedriveLoop: '#00838f',
  Manual: '#5b6470',
};
