export const DEBIAN_CHROMIUM: string;
export type ChromiumSource = 'CHROMIUM_PATH' | 'debian' | 'playwright';
export function findChromium(opts?: {
  env?: Record<string, string | undefined>;
  exists?: (path: string) => boolean;
  playwrightPath?: () => string;
}): { path: string; from: ChromiumSource } | null;
export function ensureChromium(opts?: { log?: (message: string) => void }): string;
