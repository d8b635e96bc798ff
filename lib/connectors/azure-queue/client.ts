// A queue client for an Azure Storage queue source, and what an SDK error means in a user's words.
// The SDK is loaded on first use, never when the registry loads: it needs Node 22, and the unit
// tests and the typecheck run on the machine's Node 20.
import type { QueueClient, QueueServiceClient, StoragePipelineOptions } from '@azure/storage-queue';
import { scrubSecrets } from '../secrets';
import { ConnectorError, type ConnectorSource } from '../types';
import type { AzureQueueConfig, AzureQueueSecret } from './config';

export type AzureQueueSource = ConnectorSource<AzureQueueConfig, AzureQueueSecret>;

const sdk = () => import('@azure/storage-queue');

// The supervisor and the redrive runner retry with their own backoff: one SDK retry for a blip, and
// no request hangs longer than this.
const PIPELINE: StoragePipelineOptions = { retryOptions: { maxTries: 2, tryTimeoutInMs: 30_000, retryDelayInMs: 200, maxRetryDelayInMs: 2_000 } };

export async function queueService(source: AzureQueueSource): Promise<QueueServiceClient> {
  const { QueueServiceClient, StorageSharedKeyCredential } = await sdk();
  const { connectionString, accountName, accountKey } = source.secret;
  try {
    if (connectionString) return QueueServiceClient.fromConnectionString(connectionString, PIPELINE);
    if (!source.config.endpoint)
      throw new ConnectorError('config', 'An account name and key need the queue endpoint (https://<account>.queue.core.windows.net) on the source');
    return new QueueServiceClient(source.config.endpoint, new StorageSharedKeyCredential(accountName!, accountKey!), PIPELINE);
  } catch (err) {
    if (err instanceof ConnectorError) throw err;
    throw new ConnectorError('config', `The storage account settings are not usable: ${scrubSecrets(String((err as Error)?.message ?? err), source.secret)}`);
  }
}

export async function queueClient(source: AzureQueueSource, queue = source.config.queue): Promise<QueueClient> {
  return (await queueService(source)).getQueueClient(queue);
}

interface RestErrorLike {
  name?: string;
  code?: string;
  statusCode?: number;
  message?: string;
}

const NETWORK = /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|ETIMEDOUT|EPIPE|EAI_AGAIN|socket hang up|REQUEST_SEND_ERROR|AbortError|timeout/i;

/** Whose failure an SDK error is: the network's or the service's (retry later), or the request's. */
export function isInfrastructureError(err: unknown): boolean {
  const e = err as RestErrorLike;
  if (e?.statusCode === undefined && NETWORK.test(`${e?.name ?? ''} ${e?.code ?? ''} ${e?.message ?? ''}`)) return true;
  return (e?.statusCode ?? 0) >= 500 || e?.statusCode === 429 || e?.statusCode === 408;
}

/** An SDK error as a ConnectorError: unreachable account, refused key, missing queue. */
export function azureError(err: unknown, source: AzureQueueSource, queue = source.config.queue): ConnectorError {
  if (err instanceof ConnectorError) return err;
  const e = err as RestErrorLike;
  const code = e?.code ?? e?.name ?? 'Error';
  const text = scrubSecrets(String(e?.message ?? err), source.secret)
    .split('\n')[0]!
    .slice(0, 300);
  const where = source.config.endpoint ?? 'the storage account';
  if (e?.statusCode === undefined && NETWORK.test(`${code} ${text}`)) return new ConnectorError('unreachable', `${where} is not reachable (${code})`);
  if (code === 'QueueNotFound' || (e?.statusCode === 404 && !/Message/i.test(code)))
    return new ConnectorError('not_found', `Queue "${queue}" does not exist in ${where}`);
  if (
    /AuthenticationFailed|AuthorizationFailure|AuthorizationPermissionMismatch|InvalidAuthenticationInfo|AccountIsDisabled/i.test(code) ||
    e?.statusCode === 403
  ) {
    return new ConnectorError('auth', `${where} refused the credentials (${code}): check the account key or connection string`);
  }
  if (isInfrastructureError(err)) return new ConnectorError('unreachable', `${where} is unavailable (${code}): ${text}`);
  return new ConnectorError('refused', `${where} refused the request (${code}): ${text}`);
}
