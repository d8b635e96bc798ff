// The RabbitMQ connector (amqplib, AMQP 0-9-1). Import and redrive land in the next commits; the
// settings are final, so sources can be created against this foundation.
import type { Connector } from '../types';
import { ConnectorError } from '../types';
import { rabbitmqConfigSchema, rabbitmqSecretSchema, type RabbitmqConfig, type RabbitmqSecret } from './config';

const notYet = () => new ConnectorError('config', 'The RabbitMQ connector is not built into this version yet');

export const rabbitmqConnector: Connector<RabbitmqConfig, RabbitmqSecret> = {
  kind: 'rabbitmq',
  configSchema: rabbitmqConfigSchema,
  secretSchema: rabbitmqSecretSchema,
  probe: async () => ({ ok: false, summary: notYet().message, facts: {}, error: notYet().message }),
  openImport: async () => {
    throw notYet();
  },
  redriveDestination: () => ({
    description: 'RabbitMQ',
    failures: 'infrastructure',
    deliver: async (batch) => batch.map(() => ({ ok: false, error: notYet().message })),
  }),
};
