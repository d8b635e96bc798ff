// Runs in each test worker before any lib/ module reads the environment.
import { inject } from 'vitest';

process.env.DATABASE_URL = inject('databaseUrl');
process.env.QUEUE_PREFIX = inject('queuePrefix');
process.env.LOG_LEVEL ??= 'silent';
process.env.TRIAGE_STATE_DIR = '.triage/test';
// Each test file gets its own audit checkpoint file: resetDatabase cuts the trail's tail on purpose,
// which a checkpoint left by another file would (rightly) report.
process.env.AUDIT_CHECKPOINT_FILE = `.triage/test/audit-checkpoints-${process.pid}-${Date.now().toString(36)}.ndjson`;
// Test receivers listen on loopback, which outbound requests may not reach by default (lib/outbound).
process.env.OUTBOUND_ALLOWED_HOSTS ??= '127.0.0.1,localhost,::1';
