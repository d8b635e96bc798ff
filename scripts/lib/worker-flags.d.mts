/** Node flags per worker file (scripts/lib/worker-flags.mjs). */
export const WORKER_NODE_FLAGS: Record<string, string[]> & { 'connectors.ts': string[] };
