export function buildIfStale(opts?: { log?: (message: string) => void }): void;
