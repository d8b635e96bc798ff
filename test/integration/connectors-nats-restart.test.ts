// The NATS JetStream connector through a restart of the NATS server mid-import: it reconnects with
// backoff, loses nothing and writes nothing twice. The server is the machine's, which every other
// test shares: this file runs in the last group, alone (vitest.config.ts), and only in CI or when
// asked for.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import { faultTestLifecycle, waitFor, restartAllowed } from './connectors-rabbitmq-support';
import { deleteWorkStreams, workStream } from './connectors-nats-support';
import { deadLettered, imported, listening, N, pause, expectImportedThroughOutage } from './connectors-nats-fault-support';

describe('NATS JetStream connector through a server restart', () => {
  const running = faultTestLifecycle(deleteWorkStreams);

  // Restarts the machine's nats-server, which other test runs share.
  it.skipIf(!restartAllowed('TRIAGE_TEST_NATS_RESTART'))('resumes by itself after the NATS server restarts mid-import', { timeout: 300_000 }, async () => {
    const w = await workStream({ maxDeliver: 2 });
    // Small batches: the import is still running when the server goes.
    const { sourceId, sent } = await deadLettered(w, `restart-${randomBytes(3).toString('hex')}`, { batchSize: 10 });
    running.connectors = await startConnectorSupervisor({ only: [sourceId], discoveryMs: 500, backoffBaseMs: 500, backoffCapMs: 5_000 });
    await waitFor('import under way', async () => (await imported(sourceId)) > 0, 30_000, 20);
    expect(await imported(sourceId)).toBeLessThan(N);
    try {
      execFileSync('start-stop-daemon', ['--stop', '--oknodo', '--retry', '30', '--exec', '/usr/sbin/nats-server'], { timeout: 60_000 });
      await pause(3_000);
    } finally {
      // As the machine starts it (and .ci/run does).
      execFileSync(
        'start-stop-daemon',
        [
          '--start',
          '--oknodo',
          '--background',
          '--exec',
          '/usr/sbin/nats-server',
          '--',
          '-a',
          '127.0.0.1',
          '-p',
          '4222',
          '-js',
          '-sd',
          '/var/lib/nats-server',
          '-l',
          '/var/log/nats-server.log',
        ],
        { timeout: 30_000 },
      );
      await waitFor('NATS listening again', listening, 60_000, 200);
    }
    await expectImportedThroughOutage(w, sourceId, sent, 500);
  });
});
