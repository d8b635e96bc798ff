export const root: string;
export function mtime(p: string): number;
export function installIfStale(opts?: { log?: (message: string) => void }): void;
