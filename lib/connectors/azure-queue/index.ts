// The Azure Storage queue connector (@azure/storage-queue), for Azure Functions' poison queues and any
// other Azure queue. The location is the storage account and the queue: import receives, records and
// deletes by pop receipt (import.ts), redrive sends the exact bytes to the target queue (redrive.ts),
// "test connection" reports depth, the oldest message's expiry and the known traps (probe.ts,
// traps.ts). Mapping in message.ts; re-deaths linked by their bytes in links.ts. The SDK loads on
// first use (client.ts): this module is safe to import on any Node.
import type { Connector } from '../types';
import { azureQueueConfigSchema, azureQueueSecretSchema, type AzureQueueConfig, type AzureQueueSecret } from './config';
import { importFromAzureQueue } from './import';
import { probeAzureQueue } from './probe';
import { azureQueueDestination } from './redrive';
import { readAzureSourceQueue } from './source-queue';

export const azureQueueConnector: Connector<AzureQueueConfig, AzureQueueSecret> = {
  kind: 'azure_queue',
  configSchema: azureQueueConfigSchema,
  secretSchema: azureQueueSecretSchema,
  probe: probeAzureQueue,
  openImport: importFromAzureQueue,
  readSourceQueue: readAzureSourceQueue,
  redriveDestination: azureQueueDestination,
};
