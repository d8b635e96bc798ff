// Webhook deliveries. The delivery row is written in the transaction of the event it announces, the
// job is queued after commit, and redeliverPending() re-queues any row whose job never made it to
// Redis: Postgres holds the delivery, Redis only carries the work (docs/design.md "The pieces").
import type { Job, Worker } from 'bullmq';
import { backoffDelay, fullJitter } from '@/lib/broker/backoff';
import { db, type Tx } from '@/lib/db';
import { log } from '@/lib/log';
import { postOutbound } from '@/lib/outbound/outbound-request';
import { resolveOutbound } from '@/lib/outbound/outbound-url';
import { QUEUES } from '@/lib/queue';
import { CATALOG, type JobData } from '@/lib/queue/catalog';
import { enqueueBulk } from '@/lib/queue/enqueue';
import { processJob } from '@/lib/queue/process-job';
import { createQueueWorker } from '@/lib/queue/worker';
import { DAY, MINUTE, SECOND } from '@/lib/clock';
import type { Prisma } from '@/generated/prisma/client';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signWebhook } from './signature';
import type { SlackMessage } from './alarm-message';

export const WEBHOOK_ATTEMPTS = CATALOG.webhookDeliver.attempts;
const TIMEOUT_MS = 10 * SECOND;
/** A delivery still pending after this long is given up (its job was lost after its last attempt). */
const ABANDON_AFTER_MS = DAY;
const KEEP_LOG_MS = 30 * DAY;
const MAX_ERROR_CHARS = 500;

export type DeliveryJob = JobData<'webhookDeliver'>;

/** A delivery as its job knows it: the row id and when the row was made (together, the job id). */
export interface DeliveryRef {
  id: bigint;
  createdAt: Date;
}

/** One pending delivery per enabled webhook of the team, inside the caller's transaction. */
export async function createDeliveries(tx: Tx, teamId: string, event: string, body: SlackMessage, webhookId?: string): Promise<DeliveryRef[]> {
  const hooks = await tx.webhook.findMany({ where: { teamId, ...(webhookId ? { id: webhookId } : { enabled: true }) }, select: { id: true } });
  if (hooks.length === 0) return [];
  const rows = await tx.webhookDelivery.createManyAndReturn({
    data: hooks.map((h) => ({ webhookId: h.id, event, body: body as unknown as Prisma.InputJsonValue })),
    select: { id: true, createdAt: true },
  });
  return rows;
}

/**
 * Queue delivery jobs. The job id names the delivery (its creation time too, so a restored
 * database's reused ids never meet an old job), so queueing one twice is harmless.
 */
export async function enqueueDeliveries(deliveries: DeliveryRef[]): Promise<void> {
  if (deliveries.length === 0) return;
  await enqueueBulk(
    'webhookDeliver',
    deliveries.map((d) => ({ data: { deliveryId: d.id.toString(), createdAt: d.createdAt.getTime() }, jobId: `delivery-${d.id}-${d.createdAt.getTime()}` })),
  );
}

/** Queue after commit; if Redis is away the rows stay pending and the reconciler queues them. */
export async function enqueueAfterCommit(deliveries: DeliveryRef[]): Promise<void> {
  try {
    await enqueueDeliveries(deliveries);
  } catch (err) {
    log.warn({ err, deliveries: deliveries.length }, 'webhook deliveries not queued; the reconciler will retry');
  }
}

/**
 * One attempt: POST the body, signed. Throws when the receiver did not take it, so BullMQ retries
 * with backoff; the last attempt marks the delivery failed.
 */
export async function deliverWebhook(deliveryId: bigint, { final, createdAt }: { final: boolean; createdAt?: number }): Promise<'delivered' | 'skipped'> {
  const d = await db().webhookDelivery.findUnique({ where: { id: deliveryId }, include: { webhook: true } });
  if (d?.status !== 'pending') return 'skipped';
  // A job queued for another row that had this id (before a database restore) sends nothing.
  if (createdAt !== undefined && d.createdAt.getTime() !== createdAt) return 'skipped';
  if (!d.webhook.enabled && d.event !== 'webhook.test') {
    await db().webhookDelivery.update({ where: { id: d.id }, data: { status: 'failed', error: 'webhook disabled' } });
    return 'skipped';
  }
  const body = JSON.stringify(d.body);
  const timestamp = Math.floor(Date.now() / 1000);
  let responseStatus: number | null = null;
  let error: string;
  try {
    // Checked again at send time (the name may point somewhere internal since the URL was saved),
    // and sent to the address checked, with no redirect followed (lib/outbound).
    const resolved = await resolveOutbound(d.webhook.url);
    if (!resolved.ok) throw new Error(`refused: ${resolved.problem}`);
    const res = await postOutbound(resolved.target, {
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Triage-Webhooks/1',
        'x-triage-event': d.event,
        'x-triage-delivery': d.id.toString(),
        [TIMESTAMP_HEADER]: String(timestamp),
        [SIGNATURE_HEADER]: signWebhook(d.webhook.secret, timestamp, body),
      },
      body,
      timeoutMs: TIMEOUT_MS,
    });
    responseStatus = res.status;
    if (res.status >= 200 && res.status < 300) {
      await db().webhookDelivery.update({
        where: { id: d.id },
        data: { status: 'delivered', attempts: { increment: 1 }, responseStatus, error: null, deliveredAt: new Date() },
      });
      return 'delivered';
    }
    error = `HTTP ${res.status}`;
  } catch (e) {
    error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  }
  await db().webhookDelivery.update({
    where: { id: d.id },
    data: { status: final ? 'failed' : 'pending', attempts: { increment: 1 }, responseStatus, error: error.slice(0, MAX_ERROR_CHARS) },
  });
  throw new Error(`webhook delivery ${d.id} failed: ${error}`);
}

/** The BullMQ worker for deliveries; exponential backoff with jitter between attempts. */
export function webhookWorker(opts: { backoffBaseMs?: number; concurrency?: number } = {}): Worker<DeliveryJob> {
  const base = opts.backoffBaseMs ?? 5 * SECOND;
  const worker = createQueueWorker<DeliveryJob>(
    QUEUES.webhooks,
    processJob(QUEUES.webhooks, {
      webhookDeliver: async (data, job: Job) => {
        const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
        await deliverWebhook(BigInt(data.deliveryId), { final, createdAt: data.createdAt });
      },
    }),
    {
      concurrency: opts.concurrency ?? 4,
      // Half fixed, half jittered: receivers that went down together are not hit together again.
      settings: {
        backoffStrategy: (attemptsMade: number) => {
          const cap = backoffDelay(attemptsMade, base);
          return cap / 2 + fullJitter(cap / 2, Math.random);
        },
      },
      errorMessage: 'webhook worker error',
      errorLevel: 'error',
    },
  );
  worker.on('failed', (job, err) =>
    log.warn({ deliveryId: job?.data.deliveryId, attempt: job?.attemptsMade, err: err.message }, 'webhook delivery attempt failed'),
  );
  return worker;
}

/**
 * Reconcile Postgres and Redis: re-queue deliveries pending for over a minute (their job may have
 * been lost with Redis), give up on those pending for a day, and drop the log after 30 days.
 */
export async function redeliverPending(now: Date): Promise<{ requeued: number; abandoned: number }> {
  const abandoned = await db().webhookDelivery.updateMany({
    where: { status: 'pending', createdAt: { lt: new Date(now.getTime() - ABANDON_AFTER_MS) } },
    data: { status: 'failed', error: 'abandoned: still pending after a day' },
  });
  const pending = await db().webhookDelivery.findMany({
    where: { status: 'pending', createdAt: { lt: new Date(now.getTime() - MINUTE) } },
    select: { id: true, createdAt: true },
    orderBy: { id: 'asc' },
    take: 500,
  });
  await enqueueDeliveries(pending);
  await db().webhookDelivery.deleteMany({ where: { createdAt: { lt: new Date(now.getTime() - KEEP_LOG_MS) } } });
  return { requeued: pending.length, abandoned: abandoned.count };
}
