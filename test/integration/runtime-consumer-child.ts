// A consumer process for the runtime's crash tests: the same host as workers/consumer.ts, with a
// test handler. Messages with header x-poison are rejected for good; x-hang never finishes (a
// consumer that stalls); the rest are acknowledged by recording them in runtime_acks, idempotently.
import { PermanentError } from '@/lib/broker';
import { closeDb, pg, setWorkerTimeouts } from '@/lib/db';
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import { closeQueues } from '@/lib/queue';
import { runConsumers, type ReceivedMessage } from '@/lib/runtime';

// Before any query: every session of this process carries the worker timeouts (a query gets an error, not a hang: lib/db/pools.ts).
setWorkerTimeouts('worker');

async function handle(m: ReceivedMessage): Promise<void> {
  if (m.headers['x-hang']) {
    await pg()`INSERT INTO runtime_started (message_id) VALUES (${m.id}) ON CONFLICT DO NOTHING`;
    await new Promise(() => {});
  }
  if (m.headers['x-poison']) throw new PermanentError(`poison message ${m.headers['x-poison']}`);
  await pg()`INSERT INTO runtime_acks (message_id, receives) VALUES (${m.id}, ${m.receives}) ON CONFLICT DO NOTHING`;
}

const host = await runConsumers(() => ({ handle, consumerName: 'runtime-test', consumerVersion: 'child' }), {
  discoveryMs: 500,
  concurrency: env().CONSUMER_CONCURRENCY,
});
log.info({ sources: host.sources() }, 'ready');

process.on('SIGTERM', () => {
  void host
    .close()
    .then(() => Promise.all([closeQueues(), closeDb()]))
    .finally(() => process.exit(0));
});
