// Where a redrive sends a dead letter: always its own source. Built-in sources are queues of the
// broker runtime; sources fed by the ingest API are redriven by a signed HTTP POST to their redrive URL;
// connector sources (RabbitMQ, BullMQ…) publish back into their broker through their connector, or,
// an SQS source with a redrive URL (a function's endpoint), POST there.
import { connectorSourceOf, isConnectorKind } from '@/lib/connectors';
import type { DestinationSource, RedriveDestination } from '@/lib/model/redrive-destination';
import { builtinDestination } from './builtin';
import { httpDestination } from './http-destination';

export type { DeliveryResult, DestinationSource, OutgoingRedrive, RedriveDestination } from '@/lib/model/redrive-destination';

export function destinationFor(source: DestinationSource, opts: { httpTimeoutMs?: number } = {}): RedriveDestination {
  if (source.kind === 'builtin') return builtinDestination(source.name);
  if (isConnectorKind(source.kind)) {
    const { connector, source: connectorSource } = connectorSourceOf(source);
    if (connector.redrivesToUrl && source.redriveUrl)
      return httpDestination({ url: source.redriveUrl, secret: source.redriveSecret, timeoutMs: opts.httpTimeoutMs });
    return connector.redriveDestination(connectorSource);
  }
  if (!source.redriveUrl) throw new Error(`Source "${source.name}" has no redrive URL`);
  return httpDestination({ url: source.redriveUrl, secret: source.redriveSecret, timeoutMs: opts.httpTimeoutMs });
}
