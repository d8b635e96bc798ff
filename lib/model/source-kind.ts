// Every kind of source: Triage's own broker runtime, the ingest API, and the connector kinds
// (below). Mirrors the SourceKind enum of prisma/schema.prisma.

/** The connector kinds, one folder each under lib/connectors/, registered in lib/connectors/index.ts. */
export const CONNECTOR_KINDS = ['rabbitmq', 'bullmq', 'sqs', 'nats', 'sidekiq', 'azure_queue'] as const;
export type ConnectorKind = (typeof CONNECTOR_KINDS)[number];

export function isConnectorKind(kind: string): kind is ConnectorKind {
  return (CONNECTOR_KINDS as readonly string[]).includes(kind);
}

export const SOURCE_KINDS = ['builtin', 'ingest', ...CONNECTOR_KINDS] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];
