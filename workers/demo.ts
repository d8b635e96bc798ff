// The demo producer (`npm run demo` starts it; the browser tests do not): a steady trickle of
// orders, payments and notifications with a little poison, and now and then an outage of the
// payment gateway with the wave of payments that piles up during it. Volumes stay modest.
import { runWorkerProcess } from '@/lib/worker-runner/run-worker-process';
import { produceDemoBatch } from '@/lib/demo';
import { log } from '@/lib/log';

const TRICKLE_EVERY_MS = 4_000;
// Ten minutes apart: the rate alarm turns OK one rate window (5 min) after a wave, and the seeded
// redrive rule then redrives the wave (prisma/seed.ts DEMO_REDRIVE_RULES) before the next one.
const OUTAGE_EVERY_MS = 10 * 60_000;
const FIRST_OUTAGE_AFTER_MS = 60_000;
const OUTAGE_SECONDS = 40;

let timer: NodeJS.Timeout | undefined;
let lastOutage = Date.now() - OUTAGE_EVERY_MS + FIRST_OUTAGE_AFTER_MS;
let stopping = false;

async function tick(): Promise<void> {
  const outage = Date.now() - lastOutage >= OUTAGE_EVERY_MS;
  if (outage) lastOutage = Date.now();
  const batch = await produceDemoBatch(
    outage
      ? { orders: 2, payments: 40, notifications: 1, paymentsOutageSeconds: OUTAGE_SECONDS }
      : { orders: 2, payments: 1, notifications: 1, giftEvery: 8, missingMemberEvery: 6 },
  );
  if (outage) log.info({ until: batch.paymentsDownUntil, payments: batch.payments.messageIds.length }, 'payment gateway outage started');
}

function schedule(): void {
  timer = setTimeout(() => {
    tick()
      .catch((err: unknown) => log.warn({ err: String(err) }, 'demo batch failed; trying again'))
      .finally(() => {
        if (!stopping) schedule();
      });
  }, TRICKLE_EVERY_MS);
}

runWorkerProcess({
  name: 'demo producer',
  timeouts: 'worker',
  start: async () => schedule(),
  ready: () => ({ everyMs: TRICKLE_EVERY_MS }),
  stop: async () => {
    stopping = true;
    clearTimeout(timer);
  },
});
