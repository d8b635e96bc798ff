// What the NATS fault tests share (connectors-nats-fault, connectors-nats-restart): N messages
// dead-lettered by a real consumer into a source's capture stream, and what to watch of the import.
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { expect } from 'vitest';
import { readerName } from '@/lib/connectors/nats/capture';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import { db } from '@/lib/db';
import { waitFor, expectImportedOnce } from './connectors-rabbitmq-support';
import { admin, connectorSource, publish, streamExists, streamMessages, workConsumer, type WorkStream } from './connectors-nats-support';

export const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const N = 5_000;

/** A source whose capture stream exists (its first start), then N messages nak'ed to max_deliver by a real consumer; their SHA-256 by id. */
export async function deadLettered(
  w: WorkStream,
  name: string,
  opts: { batchSize?: number; url?: string } = {},
): Promise<{ sourceId: string; sent: Map<string, string> }> {
  const source = await connectorSource(w, name, { connection: { batchSize: opts.batchSize ?? 250 }, ...(opts.url ? { secret: { url: opts.url } } : {}) });
  const first = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500 });
  await waitFor('the capture stream', () => streamExists(w.capture), 20_000);
  await first.stop();
  const sent = new Map<string, string>();
  const messages = Array.from({ length: N }, (_, i) => {
    const data = i % 101 === 0 ? new Uint8Array(0) : randomBytes(16 + (i % 300));
    sent.set(`m-${i}`, sha(data));
    return { n: i, data, msgId: `m-${i}` };
  });
  const consumer = await workConsumer(w, () => 'nak');
  await publish(w, messages);
  await waitFor('all dead-lettered', async () => (await streamMessages(w.capture)) === N, 120_000, 250);
  await consumer.close();
  return { sourceId: source.id, sent };
}

/** Whether something accepts connections on NATS's port. */
export const listening = () =>
  new Promise<boolean>((resolve) => {
    const socket = connect(4222, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

export const imported = async (sourceId: string) => db().deadLetter.count({ where: { sourceId } });
/**
 * After an outage of NATS mid-import: all N imported, every advisory acknowledged, each message
 * once with its bytes; the health says NATS was the trouble, and comes back healthy.
 */
export async function expectImportedThroughOutage(w: WorkStream, sourceId: string, sent: Map<string, string>, everyMs: number): Promise<void> {
  await waitFor('5,000 imported', async () => (await imported(sourceId)) === N, 180_000, everyMs);
  await waitFor('every advisory acknowledged', async () => (await unread(w, sourceId)) === 0, 60_000, everyMs);
  await expectImportedOnce(sourceId, sent, N);
  const health = await db().connectorHealth.findUniqueOrThrow({ where: { sourceId } });
  expect(health.lastError).toMatch(/NATS/);
  await waitFor('healthy again', async () => (await db().connectorHealth.findUniqueOrThrow({ where: { sourceId } })).consecutiveFailures === 0);
}

/** Advisories the source's reader has not acknowledged yet. */
export const unread = async (w: WorkStream, sourceId: string) => {
  const info = await (await admin()).jsm.consumers.info(w.capture, readerName(sourceId));
  return info.num_pending + info.num_ack_pending;
};
