// NATS JetStream import. The watched consumer's dead letters are announced by advisories, which
// capture.ts keeps in a stream of the connector's own; this loop reads that stream with its durable
// pull consumer in bounded batches, fetches each message the advisories name by stream sequence,
// records the batch, and only then acknowledges the advisories (write, then acknowledge). A crash in
// between hands the advisories out again after the reader's ack wait; the unique key (source,
// message id, generation) absorbs the second write. A batch whose write failed is nak'ed: handed
// out again at once, not after the ack wait. Each fetch waits for its batch, so the next one is
// asked for only once this one committed: Postgres sets the pace.
import { jetstream, jetstreamManager, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { log } from '@/lib/log';
import { ConnectorError, type ConnectorSource, type ImportSink } from '../types';
import { ensureCaptureStream, ensureReader } from './capture';
import type { NatsConfig, NatsSecret } from './config';
import { connectNats, natsError } from './connection';
import { isDeadLetterAdvisory, parseAdvisory, toDeadLetter, type Advisory, type StoredMessage } from './message';

/** How long one fetch waits for a full batch (the client's minimum is 1 s): the idle poll interval. */
const FETCH_EXPIRES_MS = 1_000;
/** How often the reader's backlog is read (the source's lag). */
const LAG_POLL_MS = 5_000;

/** A message by stream sequence, or null when the stream no longer has it. */
export async function storedMessage(jsm: JetStreamManager, stream: string, seq: number): Promise<StoredMessage | null> {
  const sm = await jsm.streams.getMessage(stream, { seq });
  if (!sm) return null;
  const h = sm.header;
  const headers: [string, string[]][] = h ? [...new Set(h.keys())].map((k) => [k, h.values(k)]) : [];
  return { subject: sm.subject, seq: sm.seq, data: sm.data, time: sm.time, headers };
}

/** Messages the watched consumer has not settled: the advisories Triage has not acknowledged. */
async function lagOf(jsm: JetStreamManager, capture: string, reader: string): Promise<number> {
  const info = await jsm.consumers.info(capture, reader);
  return info.num_pending + info.num_ack_pending;
}

export async function importFromNats(source: ConnectorSource<NatsConfig, NatsSecret>, sink: ImportSink, signal: AbortSignal): Promise<void> {
  const { secret } = source;
  const { stream, consumer, batchSize, errorText, deleteAfterImport } = source.config;
  const where = { stream, consumer };
  const nc: NatsConnection = await connectNats(secret, `triage import ${source.name}`);
  const lost = () => new ConnectorError('unreachable', `The connection to NATS was lost while importing from "${stream}" > "${consumer}"`);
  try {
    const jsm = await jetstreamManager(nc);
    // The watched stream and consumer must exist: a typo should say so, not capture nothing forever.
    await jsm.streams.info(stream).catch((err: unknown) => Promise.reject(natsError(err, secret, where)));
    await jsm.consumers.info(stream, consumer).catch((err: unknown) => Promise.reject(natsError(err, secret, where)));
    const capture = await ensureCaptureStream(jsm, stream, consumer);
    const reader = await ensureReader(jsm, capture, source.id, batchSize * 2);
    const advisories = await jetstream(nc).consumers.get(capture, reader);
    sink.health({ lag: await lagOf(jsm, capture, reader) });
    let lagReadAt = Date.now();

    while (!signal.aborted) {
      const batch: JsMsg[] = [];
      const fetched = await advisories.fetch({ max_messages: batchSize, expires: FETCH_EXPIRES_MS });
      for await (const m of fetched) batch.push(m);
      if (nc.isClosed()) throw lost();
      if (batch.length) await importBatch(jsm, batch);
      if (batch.length || Date.now() - lagReadAt >= LAG_POLL_MS) {
        sink.health({ lag: await lagOf(jsm, capture, reader) });
        lagReadAt = Date.now();
      } else sink.health();
    }
  } catch (err) {
    throw nc.isClosed() && !(err instanceof ConnectorError) ? lost() : natsError(err, secret, where);
  } finally {
    await nc.close().catch((err: unknown) => log.debug({ err, source: source.name }, 'NATS connection already closed'));
  }

  async function importBatch(jsm: JetStreamManager, batch: JsMsg[]): Promise<void> {
    const parsed = batch.map((m) => ({ m, advisory: parseAdvisory(m.data) }));
    const dead = parsed.filter((p): p is { m: JsMsg; advisory: Advisory } => p.advisory !== null && isDeadLetterAdvisory(p.advisory));
    const unreadable = parsed.filter((p) => p.advisory === null);
    if (unreadable.length)
      log.warn({ source: source.name, count: unreadable.length }, 'captured messages that are no JetStream advisory Triage knows; terminated');
    let stored: (StoredMessage | null)[];
    try {
      stored = await Promise.all(dead.map((d) => storedMessage(jsm, stream, d.advisory.streamSeq)));
    } catch (err) {
      for (const m of batch) m.nak();
      throw natsError(err, secret, where);
    }
    const gone = stored.filter((s) => s === null).length;
    if (gone) log.warn({ source: source.name, gone }, 'dead letters whose message had left the stream: recorded without payload');
    try {
      if (dead.length) await sink.record(dead.map((d, i) => toDeadLetter(d.advisory, stored[i]!, { errorText })));
    } catch (err) {
      // Not committed: handed out again at once, while the supervisor backs off.
      for (const m of batch) m.nak();
      const why = err instanceof Error ? err.message : String(err);
      throw new ConnectorError('storage', `Recording ${dead.length} dead letters failed (${why}); their advisories stay on NATS`);
    }
    for (const p of unreadable) p.m.term();
    // Acknowledged and confirmed before a message is deleted: a crash in between leaves a message in
    // the stream, never a dead letter recorded twice.
    const acked = await Promise.all(parsed.filter((p) => p.advisory !== null).map((p) => p.m.ackAck().catch(() => false)));
    if (acked.includes(false) && nc.isClosed()) throw lost();
    if (!deleteAfterImport) return;
    await Promise.all(
      dead.map(async (d, i) => {
        if (!stored[i]) return;
        await jsm.streams.deleteMessage(stream, d.advisory.streamSeq, false).catch((err: unknown) => {
          if (!/no message found/i.test(String((err as Error)?.message)))
            log.warn(
              { source: source.name, seq: d.advisory.streamSeq, error: natsError(err, secret, where).message },
              'recorded message not deleted from the stream',
            );
        });
      }),
    );
  }
}
