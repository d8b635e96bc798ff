export function installIfStale(opts?: { log?: (message: string) => void }): void;
