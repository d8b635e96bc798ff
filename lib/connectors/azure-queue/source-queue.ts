// The source queue of an Azure Storage queue source: the target queue (what the function reads).
// Azure tells its approximate message count, and a peek at its front message tells how long that one
// has waited; in-flight messages and consumers are not told.
import { ConnectorError, type ConnectorSource, type SourceQueueState } from '../types';
import { targetQueueOf, type AzureQueueConfig, type AzureQueueSecret } from './config';
import { azureError, queueClient } from './client';

export async function readAzureSourceQueue(source: ConnectorSource<AzureQueueConfig, AzureQueueSecret>, signal: AbortSignal): Promise<SourceQueueState> {
  const target = targetQueueOf(source.config);
  if (!target) throw new ConnectorError('config', `"${source.config.queue}" does not end in "-poison": set the target queue on the source`);
  try {
    const client = await queueClient(source, target);
    const props = await client.getProperties({ abortSignal: signal });
    const [front] = (await client.peekMessages({ numberOfMessages: 1, abortSignal: signal })).peekedMessageItems;
    return {
      queue: target,
      depth: props.approximateMessagesCount ?? 0,
      inFlight: null,
      consumers: null,
      oldestAgeSeconds: front ? Math.max(0, Math.round((Date.now() - front.insertedOn.getTime()) / 1000)) : null,
    };
  } catch (err) {
    throw azureError(err, source, target);
  }
}
