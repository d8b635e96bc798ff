// The demo's Sidekiq side (`npm run demo` starts it; the browser tests do not): welcome mails run by a
// real Sidekiq, the refused ones killed into its dead set, which the connectors worker imports into
// the source "mailers-sidekiq" (lib/demo/sidekiq.ts). Without Sidekiq installed it says so once and
// runs without that source; without Redis for it, it says so and tries again now and then.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { redactUrl } from '@/lib/connectors/secrets';
import { DEMO_SIDEKIQ, enqueueDemoMails, ensureDemoSidekiqSource, sidekiqInstalled, startDemoSidekiq } from '@/lib/demo/sidekiq';
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import { runWorkerProcess } from '@/lib/worker-runner/run-worker-process';

const ENQUEUE_EVERY_MS = 5_000;
const RETRY_CONNECT_MS = 60_000;

let stopping = false;
let sidekiq: ChildProcess | undefined;
let redis: Redis | undefined;

async function loop(url: string): Promise<void> {
  if (!sidekiqInstalled()) {
    log.warn(`Sidekiq is not installed (${DEMO_SIDEKIQ.bin}): the demo runs without its Sidekiq source (apt-get install ruby-sidekiq)`);
    return;
  }
  let told = false;
  while (!stopping) {
    try {
      if (!redis) {
        redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
        redis.on('error', () => {}); // surfaced by the commands that fail
        await redis.connect();
      }
    } catch (err) {
      redis?.disconnect();
      redis = undefined;
      if (!told)
        log.warn(
          { redis: redactUrl(url), error: err instanceof Error ? err.message : String(err) },
          `Redis for the demo's Sidekiq is not reachable: the demo runs without its Sidekiq source (set DEMO_SIDEKIQ_REDIS_URL; trying again every ${RETRY_CONNECT_MS / 1000} s)`,
        );
      told = true;
      await sleep(RETRY_CONNECT_MS);
      continue;
    }
    try {
      await ensureDemoSidekiqSource(url);
    } catch (err) {
      log.warn(
        { error: err instanceof Error ? err.message : String(err) },
        `the demo's Sidekiq source could not be created; trying again in ${RETRY_CONNECT_MS / 1000} s`,
      );
      await sleep(RETRY_CONNECT_MS);
      continue;
    }
    if (!sidekiq || sidekiq.exitCode !== null) {
      sidekiq = startDemoSidekiq(url);
      log.info({ redis: redactUrl(url) }, 'demo welcome mails flowing through Sidekiq; refused ones land in its dead set');
    }
    try {
      await enqueueDemoMails(redis, 2);
    } catch {
      redis.disconnect();
      redis = undefined;
      continue;
    }
    await sleep(ENQUEUE_EVERY_MS);
  }
}

runWorkerProcess({
  name: 'demo Sidekiq worker',
  timeouts: 'worker',
  start: async ({ fail }) => {
    const url = env().DEMO_SIDEKIQ_REDIS_URL;
    void loop(url).catch(fail);
    return url;
  },
  ready: (url) => ({ redis: redactUrl(url) }),
  stop: async () => {
    stopping = true;
    sidekiq?.kill('SIGTERM');
    redis?.disconnect();
  },
});
