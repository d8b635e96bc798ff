// The Sidekiq connector: another application's Sidekiq on its Redis. Import reads its dead set
// (import.ts), redrive does what Sidekiq's "Retry Now" does (redrive.ts). docs/connectors/sidekiq.md.
import type { Connector } from '../types';
import { sidekiqConfigSchema, sidekiqSecretSchema, type SidekiqConfig, type SidekiqSecret } from './config';
import { runSidekiqImport } from './import';
import { probeSidekiq } from './probe';
import { sidekiqDestination } from './redrive';
import { readSidekiqSourceQueue } from './source-queue';

export const sidekiqConnector: Connector<SidekiqConfig, SidekiqSecret> = {
  kind: 'sidekiq',
  configSchema: sidekiqConfigSchema,
  secretSchema: sidekiqSecretSchema,
  probe: probeSidekiq,
  openImport: runSidekiqImport,
  readSourceQueue: readSidekiqSourceQueue,
  redriveDestination: sidekiqDestination,
};
