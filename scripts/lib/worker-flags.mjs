// Node flags a worker runs with, wherever it is started (scripts/demo.mjs, the connectors bench; the
// Docker compose file and the README's deployment notes write the same flags).
// connectors.ts: import holds up to a prefetch of messages and their rows while a batch is written,
// so most of them outlive V8's default 16 MB young generation and are copied to the old one; a 64 MB
// semi-space lets a batch die young (about a third less garbage-collection time per message).
export const WORKER_NODE_FLAGS = {
  'connectors.ts': ['--max-semi-space-size=64'],
};
