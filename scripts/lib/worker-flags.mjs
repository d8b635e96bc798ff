// Node flags a worker runs with, wherever it is started (scripts/demo.mjs, the connectors bench; the
// Docker compose file and docs/connectors/README.md write the same flags).
// connectors.ts: import holds up to a prefetch of messages and their rows while a batch is written,
// so most of them outlive V8's default 16 MB young generation and are copied to the old one; a 128 MB
// semi-space lets a batch die young (with a prefetch of 6,000 and three batches being written, 64 MB
// still promoted some: the connectors bench's import went 11,000 → 12,400 msg/s).
export const WORKER_NODE_FLAGS = {
  'connectors.ts': ['--max-semi-space-size=128'],
};
