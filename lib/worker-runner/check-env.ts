// Imported first by the worker runner (lib/worker-runner/run-worker-process.ts), so before any module
// that reads the environment at import (lib/log.ts does): an invalid environment stops the process
// with the message that says what to fix, and exit code 78 (EX_CONFIG), instead of a stack trace.
// It writes to stderr itself: the logger cannot be built on an invalid environment.
import { env } from '@/lib/env';

export const EXIT_INVALID_ENV = 78;

try {
  env();
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(EXIT_INVALID_ENV);
}
