// The RabbitMQ connector through a restart of the RabbitMQ server mid-import: it reconnects with
// backoff, loses nothing and writes nothing twice. The server is the machine's, which every other
// test shares: this file runs in the last group, alone (vitest.config.ts), and only in CI or when
// asked for.
import { execFileSync } from 'node:child_process';
import { describe, it } from 'vitest';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import {
  faultTestLifecycle,
  deleteTopologies,
  depth,
  expectImportedOnce,
  FAULT_N as N,
  imported,
  waitFor,
  restartAllowed,
  deadLetteredSource,
} from './connectors-rabbitmq-support';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('RabbitMQ connector through a server restart', () => {
  const running = faultTestLifecycle(deleteTopologies);

  // Restarts the machine's RabbitMQ, which other test runs share.
  it.skipIf(!restartAllowed('TRIAGE_TEST_RABBITMQ_RESTART'))(
    'reconnects by itself after the RabbitMQ server restarts mid-import',
    { timeout: 240_000 },
    async () => {
      const { t, sent, source } = await deadLetteredSource('restart', { batchSize: 200, prefetch: 400 });
      running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500, backoffBaseMs: 500, backoffCapMs: 5_000 });
      await waitFor('import under way', async () => (await imported(source.id)) > 0, 30_000, 50);
      try {
        execFileSync('rabbitmqctl', ['stop_app'], { timeout: 60_000 });
        await pause(3_000);
      } finally {
        execFileSync('rabbitmqctl', ['start_app'], { timeout: 120_000 });
        execFileSync('rabbitmqctl', ['await_startup'], { timeout: 120_000 });
      }
      await waitFor('10,000 imported', async () => (await imported(source.id)) === N, 150_000, 500);
      await waitFor('the DLQ drained', async () => (await depth(t.dlq)) === 0, 30_000, 500);
      await expectImportedOnce(source.id, sent, N);
    },
  );
});
