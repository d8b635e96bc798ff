// The Amazon SQS connector (@aws-sdk/client-sqs; any SQS-compatible endpoint). The location is the
// dead-letter queue's URL: import long-polls it (import.ts), redrive sends back to its source queue
// (redrive.ts), "test connection" reports depth, source queues and the known traps (probe.ts, traps.ts).
// Mapping in message.ts.
import type { Connector } from '../types';
import { sqsConfigSchema, sqsSecretSchema, type SqsConfig, type SqsSecret } from './config';
import { importFromSqs } from './import';
import { probeSqs } from './probe';
import { sqsDestination } from './redrive';
import { readSqsSourceQueue } from './source-queue';

export const sqsConnector: Connector<SqsConfig, SqsSecret> = {
  kind: 'sqs',
  configSchema: sqsConfigSchema,
  secretSchema: sqsSecretSchema,
  probe: probeSqs,
  openImport: importFromSqs,
  readSourceQueue: readSqsSourceQueue,
  redriveDestination: sqsDestination,
  redrivesToUrl: true,
};
