// Runs in each test worker before any lib/ module reads the environment.
import { inject } from 'vitest';

// VITEST_POOL_ID is the worker's slot, 1 to maxWorkers: two files running at once never share a
// database or a Redis key space; files of one slot run one after another on theirs.
const slot = Math.max(1, Number(process.env.VITEST_POOL_ID) || 1);
const urls = inject('databaseUrls');
process.env.DATABASE_URL = urls[(slot - 1) % urls.length];
process.env.QUEUE_PREFIX = `${inject('queuePrefix')}-w${slot}`;
process.env.LOG_LEVEL ??= 'silent';
process.env.TRIAGE_STATE_DIR = '.triage/test';
// Each test file gets its own audit checkpoint file: resetDatabase cuts the trail's tail on purpose,
// which a checkpoint left by another file would (rightly) report.
process.env.AUDIT_CHECKPOINT_FILE = `.triage/test/audit-checkpoints-${process.pid}-${Date.now().toString(36)}.ndjson`;
// Test receivers listen on loopback, which outbound requests may not reach by default (lib/outbound).
process.env.OUTBOUND_ALLOWED_HOSTS ??= '127.0.0.1,localhost,::1';
// A NATS advisory left unacknowledged by a killed or cut-off connector comes back after 10 s, not
// the production 30: the fault tests wait for those redeliveries.
process.env.NATS_READER_ACK_WAIT_SECONDS ??= '10';
