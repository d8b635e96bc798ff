// The BullMQ connector: another application's BullMQ queue on Redis. Import reads its failed set
// (import.ts), redrive retries the job in place or adds a copy (redrive.ts). docs/connectors/bullmq.md.
import type { Connector } from '../types';
import { bullmqConfigSchema, bullmqSecretSchema, type BullmqConfig, type BullmqSecret } from './config';
import { runBullmqImport } from './import';
import { probeBullmq } from './probe';
import { bullmqDestination } from './redrive';
import { readBullmqSourceQueue } from './source-queue';

export const bullmqConnector: Connector<BullmqConfig, BullmqSecret> = {
  kind: 'bullmq',
  configSchema: bullmqConfigSchema,
  secretSchema: bullmqSecretSchema,
  probe: probeBullmq,
  openImport: runBullmqImport,
  readSourceQueue: readBullmqSourceQueue,
  redriveDestination: bullmqDestination,
};
