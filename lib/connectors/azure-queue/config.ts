// An Azure Storage queue source's settings, e.g. an Azure Functions poison queue. The location is the
// storage account (a connection string, or an endpoint with the account name and key: secret,
// encrypted like other connectors' URLs) and the queue's name. A queue named `<name>-poison` redrives
// to `<name>` (where Azure Functions moves a message after maxDequeueCount failed dequeues) unless
// the source names another target queue.
import { z } from 'zod';
import { errorTextMappingSchema } from '../error-text';
import { visibilityReceiveFields } from '../receive-queue-config';

/** Azure's rule for queue names: 3–63 lowercase letters, digits and single hyphens, no hyphen at either end. */
export const azureQueueName = z
  .string()
  .trim()
  .regex(/^(?=.{3,63}$)[a-z0-9](?:[a-z0-9]|-(?!-))*[a-z0-9]$/, 'an Azure queue name: 3–63 lowercase letters, digits and single hyphens');

export const AZURE_ENCODINGS = ['text', 'base64'] as const;

export const azureQueueConfigSchema = z
  .object({
    /** The queue Triage imports (e.g. orders-poison). */
    queue: azureQueueName,
    /** Where a redrive sends; else the queue's name without "-poison". */
    targetQueue: azureQueueName.optional(),
    /**
     * How the application writes message text: 'base64' (the Azure Functions runtime's default) is
     * decoded on import and encoded again on redrive; 'text' keeps the text's UTF-8 bytes.
     */
    encoding: z.enum(AZURE_ENCODINGS).default('text'),
    /** The queue service's URL (https://<account>.queue.core.windows.net) when the secret is an account name and key. */
    endpoint: z.string().trim().url().max(1000).optional(),
    ...visibilityReceiveFields(7 * 24 * 3600),
    /** Azure queues have no long poll: how long an empty receive waits before the next. */
    idlePollMs: z.number().int().min(100).max(60_000).default(1_000),
    errorText: errorTextMappingSchema.optional(),
  })
  .strict();
export type AzureQueueConfig = z.infer<typeof azureQueueConfigSchema>;

export const azureQueueSecretSchema = z
  .object({
    /** DefaultEndpointsProtocol=https;AccountName=…;AccountKey=…;EndpointSuffix=… (or a SAS connection string). */
    connectionString: z.string().trim().min(1).max(4096).optional(),
    accountName: z.string().trim().min(1).max(256).optional(),
    accountKey: z.string().trim().min(1).max(1024).optional(),
  })
  .strict()
  .refine((s) => !!s.connectionString !== (!!s.accountName && !!s.accountKey), 'a connection string, or an account name and key (one of the two)')
  .refine((s) => !s.accountName === !s.accountKey, 'an account name and an account key go together');
export type AzureQueueSecret = z.infer<typeof azureQueueSecretSchema>;

export const POISON_SUFFIX = '-poison';

/** The queue a redrive sends to: the configured one, else the poison queue's own queue; null when neither. */
export function targetQueueOf(config: Pick<AzureQueueConfig, 'queue' | 'targetQueue'>): string | null {
  if (config.targetQueue) return config.targetQueue;
  return config.queue.endsWith(POISON_SUFFIX) && config.queue.length > POISON_SUFFIX.length ? config.queue.slice(0, -POISON_SUFFIX.length) : null;
}
