// An SQS client for a source, and what an SDK error means in a user's words. Credentials come from
// the source's encrypted secret, or from the SDK's default chain when the source has none.
import { SQSClient } from '@aws-sdk/client-sqs';
import { scrubSecrets } from '../secrets';
import { ConnectorError, type ConnectorSource } from '../types';
import type { SqsConfig, SqsSecret } from './config';

/** The region in an AWS queue URL: https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq. */
export function regionOfQueueUrl(url: string): string | null {
  try {
    return /^sqs[.-]([a-z0-9-]+)\./.exec(new URL(url).hostname)?.[1] ?? null;
  } catch {
    return null;
  }
}

/** The queue name at the end of a queue URL. */
export function queueNameOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).pop() ?? url);
  } catch {
    return url;
  }
}

export const isFifoQueue = (url: string) => queueNameOf(url).endsWith('.fifo');

export function sqsClient(source: ConnectorSource<SqsConfig, SqsSecret>): SQSClient {
  const { endpoint, queueUrl } = source.config;
  const region = source.config.region ?? regionOfQueueUrl(queueUrl) ?? undefined;
  const { accessKeyId, secretAccessKey, sessionToken } = source.secret;
  return new SQSClient({
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } } : {}),
    // The supervisor and the redrive runner retry with their own backoff; the SDK's standard retries stay for throttling.
    maxAttempts: 3,
  });
}

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
  Code?: string;
}

const NETWORK = /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|ETIMEDOUT|EPIPE|socket hang up|TimeoutError|RequestTimeout/i;

/** Whose failure an SDK error is: the network's or the service's (retry later), or the request's. */
export function isInfrastructureError(err: unknown): boolean {
  const e = err as SdkError;
  const name = e?.name ?? e?.code ?? '';
  if (NETWORK.test(`${name} ${e?.code ?? ''} ${e?.message ?? ''}`)) return true;
  if (/Throttl|RequestThrottled|ServiceUnavailable|InternalError|KmsThrottled/i.test(name)) return true;
  if (e?.$fault === 'server' || (e?.$metadata?.httpStatusCode ?? 0) >= 500) return true;
  return /CredentialsProviderError|InvalidClientTokenId|SignatureDoesNotMatch|AccessDenied|UnrecognizedClient|ExpiredToken/i.test(name);
}

/** An SDK error as a ConnectorError: unreachable endpoint, refused credentials, missing queue. */
export function sqsError(err: unknown, source: ConnectorSource<SqsConfig, SqsSecret>, queueUrl = source.config.queueUrl): ConnectorError {
  if (err instanceof ConnectorError) return err;
  const e = err as SdkError;
  const name = e?.name ?? e?.code ?? 'Error';
  const text = scrubSecrets(String(e?.message ?? err), source.secret);
  const endpoint = source.config.endpoint ?? `SQS in ${source.config.region ?? regionOfQueueUrl(queueUrl) ?? 'the default region'}`;
  if (NETWORK.test(`${name} ${e?.code ?? ''} ${text}`)) return new ConnectorError('unreachable', `${endpoint} is not reachable (${e?.code ?? name})`);
  if (/QueueDoesNotExist|NonExistentQueue/i.test(`${name} ${e?.Code ?? ''}`))
    return new ConnectorError('not_found', `Queue "${queueNameOf(queueUrl)}" does not exist at ${endpoint}`);
  if (/CredentialsProviderError/i.test(name))
    return new ConnectorError('auth', `No AWS credentials: set an access key on the source or in the worker's environment`);
  if (/InvalidClientTokenId|SignatureDoesNotMatch|UnrecognizedClient|ExpiredToken|InvalidSecurity/i.test(name))
    return new ConnectorError('auth', `${endpoint} refused the credentials (${name})`);
  if (/AccessDenied/i.test(name)) return new ConnectorError('auth', `Not allowed on queue "${queueNameOf(queueUrl)}": ${text}`);
  if (e?.$fault === 'server' || (e?.$metadata?.httpStatusCode ?? 0) >= 500 || /Throttl|ServiceUnavailable/i.test(name)) {
    return new ConnectorError('unreachable', `${endpoint} is unavailable (${name}): ${text}`);
  }
  return new ConnectorError('refused', `${endpoint} refused the request (${name}): ${text}`);
}
