// The NATS JetStream connector (@nats-io/transport-node, @nats-io/jetstream). The location is an
// application's stream and its durable consumer with max_deliver: import captures the consumer's
// dead-letter advisories into a stream of its own and records the messages they name (capture.ts,
// import.ts), redrive publishes back to each message's subject (redrive.ts), "test connection"
// reports what it finds (probe.ts). Mapping in message.ts.
import type { Connector } from '../types';
import { natsConfigSchema, natsSecretSchema, type NatsConfig, type NatsSecret } from './config';
import { importFromNats } from './import';
import { probeNats } from './probe';
import { natsDestination } from './redrive';
import { readNatsSourceQueue } from './source-queue';

export const natsConnector: Connector<NatsConfig, NatsSecret> = {
  kind: 'nats',
  configSchema: natsConfigSchema,
  secretSchema: natsSecretSchema,
  probe: probeNats,
  openImport: importFromNats,
  readSourceQueue: readNatsSourceQueue,
  redriveDestination: natsDestination,
};
