// An Azure Storage queue as a redrive destination: sendMessage to the target queue (the poison queue's
// own queue, or the one the source names) with the exact bytes, as base64 again when the source reads
// base64. Azure has no batch send: a few sends run at once. A message over Azure's 64 KiB is refused
// per item, before any call. Each send is remembered by its bytes (links.ts) so that a re-death is
// the next generation: the record is written while the sends run (it costs the pace nothing) and
// forgotten for a send that failed, and the message is sent hidden for a moment so that the record
// has committed before any consumer (or Functions' move to the poison queue) can see it.
import { pg } from '@/lib/db';
import { log } from '@/lib/log';
import type { DeliveryResult, OutgoingRedrive, RedriveDestination } from '@/lib/model/redrive-destination';
import type { ConnectorSource } from '../types';
import { targetQueueOf, type AzureQueueConfig, type AzureQueueSecret } from './config';
import { azureError, isInfrastructureError, queueClient } from './client';
import { forgetSends, pruneSends, recordSends, sha256, type SentRedrive } from './links';
import { redriveText } from './message';

/** Sends in flight at once. */
const CONCURRENCY = 16;
/** How long a sent message stays hidden: the time its record has to commit. */
const SEND_HIDDEN_SECONDS = 1;
/** Azure's time to live for a message sent without one: 7 days. */
const DEFAULT_TTL_MS = 7 * 86_400_000;

export function azureQueueDestination(source: ConnectorSource<AzureQueueConfig, AzureQueueSecret>): RedriveDestination {
  const target = targetQueueOf(source.config);
  const client = target ? queueClient(source, target) : null;
  client?.catch(() => undefined);
  let pruned = false;

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
        return batch.map(() => ({
          ok: false,
          error: `"${source.config.queue}" does not end in "-poison": set the target queue on the source`,
          failure: 'refused',
        }));
      }
      let queue;
      try {
        queue = await client;
      } catch (err) {
        return batch.map(() => unsent(err));
      }
      const texts = batch.map((m) => redriveText(m, source.config.encoding));
      const expiresAt = new Date(Date.now() + DEFAULT_TTL_MS);
      const links = new Map<number, SentRedrive>();
      texts.forEach((t, i) => {
        if ('text' in t)
          links.set(i, { payloadSha256: sha256(batch[i]!.payload), originalId: batch[i]!.messageId, redriveCount: batch[i]!.redriveCount + 1, expiresAt });
      });
      // Without the record a re-death is a new dead letter rather than the next generation: said, never a failed send.
      const recorded = recordSends(pg(), source.id, [...links.values()]).catch((err: unknown) => {
        log.warn(
          { source: source.name, err: err instanceof Error ? err.message : String(err), sends: links.size },
          'Azure queue: recording redrive sends failed; their re-deaths will not be linked',
        );
        return [] as string[];
      });
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < batch.length; i = next++) {
          const built = texts[i]!;
          if ('error' in built) {
            results[i] = { ok: false, error: built.error, failure: 'message' };
            continue;
          }
          try {
            await queue.sendMessage(built.text, { visibilityTimeout: SEND_HIDDEN_SECONDS, abortSignal: signal });
            results[i] = { ok: true, acknowledged: false };
          } catch (err) {
            results[i] = unsent(err);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, batch.length) }, worker));
      const written = await recorded;
      const failed = [...links].filter(([i]) => !results[i]!.ok).map(([, l]) => l);
      await forgetSends(pg(), written, failed).catch((err: unknown) =>
        log.warn({ source: source.name, err: err instanceof Error ? err.message : String(err) }, 'Azure queue: forgetting failed sends failed'),
      );
      if (!pruned) {
        pruned = true;
        await pruneSends(pg(), source.id).catch(() => undefined);
      }
      return results;
    },
  };
}
