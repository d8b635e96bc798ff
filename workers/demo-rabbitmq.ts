// The demo's RabbitMQ side (`npm run demo` starts it; the browser tests do not): shipments published
// to the local RabbitMQ and consumed Spring-style, poison ones dead-lettered with exception headers,
// which the connectors worker imports into the source "shipments-rmq" (lib/demo/rabbitmq.ts). When
// RabbitMQ is not reachable, it says so once and runs without that source, trying again now and then.
import { setTimeout as sleep } from 'node:timers/promises';
import { redactUrl } from '@/lib/connectors/secrets';
import { closeDb, useWorkerTimeouts } from '@/lib/db';
import { ensureDemoRabbitmqSource, startDemoRabbitmq, type DemoRabbitmq } from '@/lib/demo/rabbitmq';
import { env } from '@/lib/env';
import { log } from '@/lib/log';

// Before any query: every session of this process carries the worker timeouts (a query gets an error, not a hang: lib/db.ts).
useWorkerTimeouts('worker');

const PUBLISH_EVERY_MS = 5_000;
const RETRY_CONNECT_MS = 60_000;

let stopping = false;
let demo: DemoRabbitmq | undefined;

async function main(): Promise<void> {
  const url = env().DEMO_RABBITMQ_URL;
  let told = false;
  log.info({ rabbitmq: redactUrl(url) }, 'ready');
  while (!stopping) {
    try {
      demo = await startDemoRabbitmq(url);
      await ensureDemoRabbitmqSource(url);
    } catch (err) {
      await demo?.close();
      demo = undefined;
      if (!told) {
        const error = err instanceof Error ? err.message.replaceAll(url, redactUrl(url)) : String(err);
        log.warn({ rabbitmq: redactUrl(url), error }, `RabbitMQ is not reachable: the demo runs without its RabbitMQ source (start RabbitMQ or set DEMO_RABBITMQ_URL; trying again every ${RETRY_CONNECT_MS / 1000} s)`);
        told = true;
      }
      await sleep(RETRY_CONNECT_MS);
      continue;
    }
    told = false;
    log.info({ rabbitmq: redactUrl(url) }, 'demo shipments flowing through RabbitMQ; poison ones are dead-lettered into demo.shipments.dlq');
    let lost = false;
    void demo.closed.then(() => (lost = true));
    while (!stopping && !lost) {
      demo.publish(2);
      await sleep(PUBLISH_EVERY_MS);
    }
    if (lost && !stopping) log.warn('demo RabbitMQ connection lost; reconnecting');
  }
}

async function shutdown(): Promise<void> {
  stopping = true;
  await demo?.close();
  await closeDb();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());

main().catch((err: unknown) => {
  log.fatal({ err }, 'demo RabbitMQ worker failed');
  process.exit(1);
});
