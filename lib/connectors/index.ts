// The connector registry: source kind → connector (lib/connectors/types.ts). A connector source row
// becomes a ConnectorSource here: its settings parsed by the connector's schema, its secrets decrypted.
import { unprocessable } from '@/lib/errors';
import { azureQueueConnector } from './azure-queue';
import { bullmqConnector } from './bullmq';
import { natsConnector } from './nats';
import { rabbitmqConnector } from './rabbitmq';
import { sidekiqConnector } from './sidekiq';
import { sqsConnector } from './sqs';
import { decryptSecret, type ConnectorSecret } from './secrets';
import { isConnectorKind, type Connector, type ConnectorKind, type ConnectorSource } from './types';
import { issueText } from '@/lib/zod-issues';

export * from './types';
export { redactUrl, scrubSecrets } from './secrets';

// Each connector has its own settings type; the registry holds them side by side.
// biome-ignore lint/suspicious/noExplicitAny: each entry keeps its own settings types; callers go through connectorSourceOf
type AnyConnector = Connector<any, any>;

const CONNECTORS: Partial<Record<ConnectorKind, AnyConnector>> = {
  rabbitmq: rabbitmqConnector,
  bullmq: bullmqConnector,
  nats: natsConnector,
  sqs: sqsConnector,
  sidekiq: sidekiqConnector,
  azure_queue: azureQueueConnector,
};

/** The connector of a kind, or a 422 saying this build has none for it. */
export function connectorFor(kind: string): AnyConnector {
  const connector = isConnectorKind(kind) ? CONNECTORS[kind] : undefined;
  if (!connector) throw unprocessable(`No connector for source kind "${kind}" in this version`, { field: 'kind' });
  return connector;
}

/** Kinds with a connector in this build (the supervisor runs their imports). */
export function registeredConnectorKinds(): ConnectorKind[] {
  return Object.keys(CONNECTORS) as ConnectorKind[];
}

/** The columns of a source row a connector needs. */
export interface ConnectorSourceRow {
  id: string;
  name: string;
  kind: string;
  connection: unknown;
  connectionSecret: Uint8Array | null;
  retentionSeconds: number;
  maxRedrives: number;
}

/** A stored source as its connector sees it. Throws a 422 when its settings no longer parse. */
export function connectorSourceOf(row: ConnectorSourceRow): { connector: AnyConnector; source: ConnectorSource<unknown, ConnectorSecret> } {
  const connector = connectorFor(row.kind);
  const config = connector.configSchema.safeParse(row.connection ?? {});
  if (!config.success) throw unprocessable(`Source "${row.name}": invalid connection settings: ${issueText(config.error.issues)}`);
  if (!row.connectionSecret) throw unprocessable(`Source "${row.name}" has no credentials`);
  const secret = connector.secretSchema.safeParse(decryptSecret(row.connectionSecret));
  if (!secret.success) throw unprocessable(`Source "${row.name}": stored credentials are incomplete`);
  return {
    connector,
    source: {
      id: row.id,
      name: row.name,
      kind: row.kind as ConnectorKind,
      config: config.data,
      secret: secret.data as ConnectorSecret,
      retentionSeconds: row.retentionSeconds,
      maxRedrives: row.maxRedrives,
    },
  };
}
