// "Test connection" for an Azure Storage queue source: the queue exists, its depth (the lag) and its
// oldest message's expiry, the target queue a redrive sends to, and the known traps (./traps.ts).
import { type ConnectorSource, foundQueueReport, type ProbeReport } from '../types';
import { targetQueueOf, type AzureQueueConfig, type AzureQueueSecret } from './config';
import { azureError, queueService } from './client';
import { azureQueueTraps } from './traps';

export async function probeAzureQueue(source: ConnectorSource<AzureQueueConfig, AzureQueueSecret>, signal?: AbortSignal): Promise<ProbeReport> {
  const { queue } = source.config;
  const target = targetQueueOf(source.config);
  try {
    const service = await queueService(source);
    const client = service.getQueueClient(queue);
    const props = await client.getProperties({ abortSignal: signal });
    const [oldest] = (await client.peekMessages({ numberOfMessages: 1, abortSignal: signal })).peekedMessageItems;
    const facts: ProbeReport['facts'] = {
      account: service.accountName,
      queue,
      exists: true,
      depth: props.approximateMessagesCount ?? null,
      encoding: source.config.encoding,
      oldestInsertedOn: oldest ? oldest.insertedOn.toISOString() : null,
      oldestExpiresOn: oldest ? oldest.expiresOn.toISOString() : null,
      targetQueue: target,
    };
    const notes: string[] = [];
    if (!target) {
      notes.push(`"${queue}" does not end in "-poison": set the target queue on the source, or a redrive has nowhere to send`);
    } else {
      try {
        const t = await service.getQueueClient(target).getProperties({ abortSignal: signal });
        facts.targetDepth = t.approximateMessagesCount ?? null;
      } catch (err) {
        const e = azureError(err, source, target);
        facts.targetError = e.message;
        notes.push(`The target queue: ${e.message}`);
      }
    }
    const traps = azureQueueTraps(source.config, target, oldest ?? null, new Date());
    const summary = `Queue "${queue}" exists: ${facts.depth} messages`;
    return foundQueueReport(summary, facts, traps, notes);
  } catch (err) {
    const error = azureError(err, source).message;
    return { ok: false, summary: error, facts: { queue }, error };
  }
}
