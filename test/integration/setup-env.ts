// Runs in each test worker before any lib/ module reads the environment.
import { inject } from 'vitest';

process.env.DATABASE_URL = inject('databaseUrl');
process.env.QUEUE_PREFIX = inject('queuePrefix');
process.env.LOG_LEVEL ??= 'silent';
process.env.TRIAGE_STATE_DIR = '.triage/test';
