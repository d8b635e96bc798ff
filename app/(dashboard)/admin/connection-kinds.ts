// The connection fields of each connector kind, as the admin forms show them (the per-kind fields
// component, connection-fields.tsx) and read them back (connectionFromForm, in the server actions).
// A kind without an entry here cannot be set up from the pages yet.
// Field names are the connector's own settings (lib/connectors/<kind>/config.ts), which validate them.
import type { ConnectorKind } from '@/lib/connectors/types';

export interface ConnectionField {
  /** The setting's name in sources.connection, or in the secret for `secret` fields. */
  name: string;
  label: string;
  /** `boolean`: a select whose options are 'false' and 'true', stored as a boolean. */
  type: 'text' | 'url' | 'number' | 'select' | 'boolean' | 'secret';
  required?: boolean;
  placeholder?: string;
  options?: { value: string; label: string }[];
}

export interface ConnectionKindForm {
  label: string;
  fields: ConnectionField[];
  /** Whether the error-text mapping applies (the kind's messages carry headers or a body, not an error). */
  errorText: boolean;
}

/** What an import does with the broker's copy once its row committed: kept (`keep`) or removed (`remove`). */
const afterImport = (name: string, keep: string, remove: string): ConnectionField => ({
  name,
  label: 'After import',
  type: 'boolean',
  options: [
    { value: 'false', label: keep },
    { value: 'true', label: remove },
  ],
});

export const CONNECTION_FORMS: Partial<Record<ConnectorKind, ConnectionKindForm>> = {
  rabbitmq: {
    label: 'RabbitMQ dead-letter queue',
    fields: [
      { name: 'url', label: 'AMQP URL (with credentials)', type: 'secret', required: true, placeholder: 'amqp://user:pass@host:5672/vhost' },
      { name: 'queue', label: 'Dead-letter queue', type: 'text', required: true, placeholder: 'orders.dlq' },
      { name: 'targetQueue', label: 'Redrive to queue (default: original exchange)', type: 'text', placeholder: 'original exchange and routing keys' },
      // Watched beside the DLQ: an empty DLQ proves nothing when nothing consumes this queue.
      { name: 'sourceQueue', label: 'Source queue (what your consumer reads; default: the redrive queue)', type: 'text', placeholder: 'orders.work' },
      { name: 'managementUrl', label: 'Management API URL (optional)', type: 'url', placeholder: 'http://host:15672' },
      { name: 'prefetch', label: 'Prefetch', type: 'number', placeholder: '6000' },
    ],
    errorText: true,
  },
  bullmq: {
    label: "Another app's BullMQ failed set",
    fields: [
      { name: 'url', label: 'Redis URL (with credentials)', type: 'secret', required: true, placeholder: 'redis://:pass@host:6379/0' },
      { name: 'queue', label: 'Queue name', type: 'text', required: true, placeholder: 'emails' },
      { name: 'prefix', label: 'Key prefix', type: 'text', placeholder: 'bull' },
      afterImport('removeAfterImport', 'leave the job in place (the app’s tools keep working)', 'remove the job once its row committed'),
    ],
    errorText: false,
  },
  sidekiq: {
    label: "Another app's Sidekiq dead set",
    fields: [
      { name: 'url', label: 'Redis URL (with credentials and database)', type: 'secret', required: true, placeholder: 'redis://:pass@host:6379/0' },
      { name: 'namespace', label: 'Namespace (redis-namespace, if the app uses one)', type: 'text', placeholder: 'none: keys at the top of the database' },
      { name: 'sourceQueue', label: 'Source queue (watched beside the dead set; default: the newest dead job’s)', type: 'text', placeholder: 'default' },
      { name: 'retryCountAtLeast', label: 'Also import retrying jobs from this retry_count on (optional)', type: 'number', placeholder: 'dead set only' },
      { name: 'deadMaxJobs', label: 'The app’s dead_max_jobs', type: 'number', placeholder: '10000' },
      { name: 'deadTimeoutSeconds', label: 'The app’s dead_timeout_in_seconds', type: 'number', placeholder: '15552000' },
      afterImport('removeAfterImport', 'leave the job in the dead set (Sidekiq’s Web UI keeps working)', 'remove it from the dead set once its row committed'),
    ],
    errorText: false,
  },
  sqs: {
    label: 'Amazon SQS dead-letter queue',
    fields: [
      {
        name: 'queueUrl',
        label: 'Dead-letter queue URL',
        type: 'url',
        required: true,
        placeholder: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq',
      },
      {
        name: 'sourceQueueUrl',
        label: 'Source queue URL (redrive target, watched beside the DLQ; default: the DLQ’s source queue)',
        type: 'url',
        placeholder: 'found with ListDeadLetterSourceQueues',
      },
      { name: 'endpoint', label: 'Endpoint (SQS-compatible server, optional)', type: 'url', placeholder: 'http://localhost:4566' },
      { name: 'region', label: 'Region (default: from the queue URL)', type: 'text', placeholder: 'eu-west-1' },
      {
        name: 'envelope',
        label: 'What wraps the failed events',
        type: 'select',
        options: [
          { value: 'auto', label: 'recognise AWS failure records by their shape' },
          { value: 'none', label: 'nothing: each body is the event' },
          { value: 'lambda-destination', label: 'Lambda on-failure destination records' },
          { value: 'lambda-dlq', label: 'Lambda dead-letter queue (error in attributes)' },
          { value: 'eventbridge', label: 'EventBridge target dead-letter queue' },
          { value: 'sns', label: 'SNS subscription dead-letter queue' },
        ],
      },
      // Left blank: the AWS SDK's usual environment (AWS_ACCESS_KEY_ID…, instance roles).
      { name: 'accessKeyId', label: 'Access key id (optional)', type: 'secret', placeholder: 'blank: the AWS environment' },
      { name: 'secretAccessKey', label: 'Secret access key (optional)', type: 'secret', placeholder: 'blank: the AWS environment' },
    ],
    errorText: true,
  },
  azure_queue: {
    label: 'Azure Storage queue (Azure Functions poison queue)',
    fields: [
      {
        name: 'connectionString',
        label: 'Connection string (or an account name and key below)',
        type: 'secret',
        placeholder: 'DefaultEndpointsProtocol=https;AccountName=…;AccountKey=…',
      },
      { name: 'queue', label: 'Queue', type: 'text', required: true, placeholder: 'orders-poison' },
      { name: 'targetQueue', label: 'Redrive to queue (default: the name without "-poison")', type: 'text', placeholder: 'orders' },
      {
        name: 'encoding',
        label: 'Message text',
        type: 'select',
        options: [
          { value: 'text', label: 'text, kept as its UTF-8 bytes' },
          { value: 'base64', label: 'base64 (the Functions runtime’s default), decoded' },
        ],
      },
      { name: 'endpoint', label: 'Queue endpoint (with an account name and key)', type: 'url', placeholder: 'https://account.queue.core.windows.net' },
      { name: 'accountName', label: 'Account name (optional)', type: 'secret' },
      { name: 'accountKey', label: 'Account key (optional)', type: 'secret' },
    ],
    errorText: true,
  },
  nats: {
    label: 'NATS JetStream consumer (max deliveries)',
    fields: [
      { name: 'url', label: 'NATS URL (credentials may be in it)', type: 'secret', required: true, placeholder: 'nats://user:pass@host:4222' },
      { name: 'token', label: 'Token (optional)', type: 'secret' },
      { name: 'user', label: 'User (optional)', type: 'secret' },
      { name: 'pass', label: 'Password (optional)', type: 'secret' },
      { name: 'stream', label: 'Stream', type: 'text', required: true, placeholder: 'ORDERS' },
      { name: 'consumer', label: 'Durable consumer (with max_deliver)', type: 'text', required: true, placeholder: 'orders-worker' },
      afterImport('deleteAfterImport', 'leave the message in the stream', 'delete it from the stream once its row committed (work-queue streams)'),
    ],
    errorText: true,
  },
};

/** The error-text mapping's fields (lib/connectors/error-text.ts), under connection.errorText. */
export const ERROR_TEXT_FIELDS: ConnectionField[] = [
  { name: 'typeHeader', label: 'Error type header', type: 'text', placeholder: 'x-exception-fqcn' },
  { name: 'messageHeader', label: 'Error message header', type: 'text', placeholder: 'x-exception-message' },
  { name: 'stackHeader', label: 'Stack trace header', type: 'text', placeholder: 'x-exception-stacktrace' },
  { name: 'typePath', label: 'Error type JSON path', type: 'text', placeholder: '$.error.type' },
  { name: 'messagePath', label: 'Error message JSON path', type: 'text', placeholder: '$.error.message' },
  { name: 'stackPath', label: 'Stack trace JSON path', type: 'text', placeholder: '$.error.stack' },
];

const field = (f: FormData, k: string) => {
  const v = f.get(k);
  return typeof v === 'string' ? v.trim() : '';
};

/**
 * A kind's connection from its form (fields named `connection.<name>`, `secret.<name>` and
 * `errorText.<name>`). Creating, blank fields are left out; editing (`patch`), a blank setting is
 * removed (null) and a blank secret keeps the stored one.
 */
export function connectionFromForm(kind: ConnectorKind, f: FormData, mode: 'create' | 'patch') {
  const spec = CONNECTION_FORMS[kind];
  if (!spec) return {};
  const connection: Record<string, unknown> = {};
  const secret: Record<string, string> = {};
  for (const x of spec.fields) {
    const v = field(f, x.type === 'secret' ? `secret.${x.name}` : `connection.${x.name}`);
    if (x.type === 'secret') {
      if (v) secret[x.name] = v;
    } else if (x.type === 'boolean' && (v === 'true' || v === 'false')) connection[x.name] = v === 'true';
    else if (v) connection[x.name] = x.type === 'number' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
    else if (mode === 'patch') connection[x.name] = null;
  }
  if (spec.errorText) {
    const mapping = Object.fromEntries(ERROR_TEXT_FIELDS.map((x) => [x.name, field(f, `errorText.${x.name}`)]).filter(([, v]) => v));
    if (Object.keys(mapping).length) connection.errorText = mapping;
    else if (mode === 'patch') connection.errorText = null;
  }
  return { connection, ...(Object.keys(secret).length || mode === 'create' ? { secret } : {}) };
}
