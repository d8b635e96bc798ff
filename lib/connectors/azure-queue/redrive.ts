// An Azure Storage queue as a redrive destination: sendMessage to the target queue (the poison queue's
// own queue, or the one the source names) with the exact bytes, as base64 again when the source reads
// base64. Azure has no batch send: a few sends run at once. A message over Azure's 64 KiB is refused
// per item, before any call. Each send is remembered by its bytes (links.ts) so that a re-death is
// the next generation; the message is sent hidden for a moment so that the record exists before any
// consumer (or Functions' move to the poison queue) can see it.
import { pg } from '@/lib/db';
import { log } from '@/lib/log';
import type { DeliveryResult, OutgoingRedrive, RedriveDestination } from '@/lib/redrive/destinations';
import type { ConnectorSource } from '../types';
import { targetQueueOf, type AzureQueueConfig, type AzureQueueSecret } from './config';
import { azureError, isInfrastructureError, queueClient } from './client';
import { recordSends, sha256, type SentRedrive } from './links';
import { redriveText } from './message';

/** Sends in flight at once. */
const CONCURRENCY = 16;
/** How long a sent message stays hidden: the time its record has to commit. */
const SEND_HIDDEN_SECONDS = 1;

export function azureQueueDestination(source: ConnectorSource<AzureQueueConfig, AzureQueueSecret>): RedriveDestination {
  const target = targetQueueOf(source.config);
  const client = target ? queueClient(source, target) : null;
  client?.catch(() => undefined);

  /** A send Azure refused or did not answer: whose failure it is, and what to change. */
  function unsent(err: unknown): DeliveryResult {
    const e = azureError(err, source, target!);
    if (e.kind === 'not_found') return { ok: false, error: `${e.message}: create it, or set the target queue on the source`, failure: 'refused' };
    if (e.kind === 'auth' || e.kind === 'config') return { ok: false, error: e.message, failure: 'refused' };
    return { ok: false, error: e.message, failure: isInfrastructureError(err) || e.kind === 'unreachable' ? 'infrastructure' : 'message' };
  }

  return {
    description: target ? `Azure queue "${target}"` : `Azure queue (no target for "${source.config.queue}")`,
    failures: 'infrastructure',
    async deliver(batch: OutgoingRedrive[], signal: AbortSignal): Promise<DeliveryResult[]> {
      const results: DeliveryResult[] = new Array(batch.length);
      if (!target || !client) {
        return batch.map(() => ({ ok: false, error: `"${source.config.queue}" does not end in "-poison": set the target queue on the source`, failure: 'refused' }));
      }
      let queue;
      try {
        queue = await client;
      } catch (err) {
        return batch.map(() => unsent(err));
      }
      const sent: SentRedrive[] = [];
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < batch.length; i = next++) {
          const m = batch[i]!;
          const built = redriveText(m, source.config.encoding);
          if ('error' in built) {
            results[i] = { ok: false, error: built.error, failure: 'message' };
            continue;
          }
          try {
            const res = await queue.sendMessage(built.text, { visibilityTimeout: SEND_HIDDEN_SECONDS, abortSignal: signal });
            sent.push({ payloadSha256: sha256(m.payload), originalId: m.messageId, redriveCount: m.redriveCount + 1, expiresAt: res.expiresOn });
            results[i] = { ok: true, acknowledged: false };
          } catch (err) {
            results[i] = unsent(err);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, batch.length) }, worker));
      // Sent is sent: without the record a re-death is a new dead letter rather than the next generation.
      await recordSends(pg(), source.id, sent).catch((err: unknown) =>
        log.warn({ source: source.name, err: err instanceof Error ? err.message : String(err), sent: sent.length }, 'Azure queue: recording redrive sends failed; their re-deaths will not be linked'),
      );
      return results;
    },
  };
}
