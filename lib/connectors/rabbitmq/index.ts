// The RabbitMQ connector (amqplib, AMQP 0-9-1). The location is the queue bound to a dead-letter
// exchange: import reads it (import.ts), redrive publishes back to where each message first died
// (redrive.ts), "test connection" reports what it finds (probe.ts). Mapping in message.ts.
import type { Connector } from '../types';
import { rabbitmqConfigSchema, rabbitmqSecretSchema, type RabbitmqConfig, type RabbitmqSecret } from './config';
import { importFromRabbitmq } from './import';
import { probeRabbitmq } from './probe';
import { rabbitmqDestination } from './redrive';
import { readRabbitmqSourceQueue } from './source-queue';

export const rabbitmqConnector: Connector<RabbitmqConfig, RabbitmqSecret> = {
  kind: 'rabbitmq',
  configSchema: rabbitmqConfigSchema,
  secretSchema: rabbitmqSecretSchema,
  probe: probeRabbitmq,
  openImport: importFromRabbitmq,
  readSourceQueue: readRabbitmqSourceQueue,
  redriveDestination: rabbitmqDestination,
};
