// The demo's RabbitMQ side (`npm run demo` starts it; the browser tests do not): shipments published
// to the local RabbitMQ and consumed Spring-style, poison ones dead-lettered with exception headers,
// which the connectors worker imports into the source "shipments-rmq" (lib/demo/rabbitmq.ts). When
// RabbitMQ is not reachable, it says so once and runs without that source, trying again now and then.
import { runWorkerProcess } from '@/lib/worker-runner/run-worker-process';
import { setTimeout as sleep } from 'node:timers/promises';
import { redactUrl } from '@/lib/connectors/secrets';
import { ensureDemoRabbitmqSource, startDemoRabbitmq, type DemoRabbitmq } from '@/lib/demo/rabbitmq';
import { env } from '@/lib/env';
import { log } from '@/lib/log';

const PUBLISH_EVERY_MS = 5_000;
const RETRY_CONNECT_MS = 60_000;

let stopping = false;
let demo: DemoRabbitmq | undefined;

async function publishLoop(url: string): Promise<void> {
  let told = false;
  while (!stopping) {
    try {
      demo = await startDemoRabbitmq(url);
      await ensureDemoRabbitmqSource(url);
    } catch (err) {
      await demo?.close();
      demo = undefined;
      if (!told) {
        const error = err instanceof Error ? err.message.replaceAll(url, redactUrl(url)) : String(err);
        log.warn(
          { rabbitmq: redactUrl(url), error },
          `RabbitMQ is not reachable: the demo runs without its RabbitMQ source (start RabbitMQ or set DEMO_RABBITMQ_URL; trying again every ${RETRY_CONNECT_MS / 1000} s)`,
        );
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

runWorkerProcess({
  name: 'demo RabbitMQ worker',
  timeouts: 'worker',
  // The loop runs in the background; "ready" comes before the first connection, as it always did.
  start: async ({ fail }) => {
    const url = env().DEMO_RABBITMQ_URL;
    void publishLoop(url).catch(fail);
    return url;
  },
  ready: (url) => ({ rabbitmq: redactUrl(url) }),
  stop: async () => {
    stopping = true;
    await demo?.close();
  },
});
