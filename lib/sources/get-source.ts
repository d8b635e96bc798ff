// One source as a client may see it (GET /api/v1/sources/:source, the source page): its settings
// without any secret and, for a connector source, its import's health, whether its dead letters
// will carry error text to cluster by, and its source queue as last read.
import type { Principal } from '@/lib/auth';
import { z } from 'zod';
import { ConnectorHealthView, ErrorTextStatus, connectorHealth, errorTextStatus } from '@/lib/connectors/health';
import type { ErrorTextMapping } from '@/lib/connectors/error-text';
import { SourceQueueView, sourceQueueReadings } from '@/lib/connectors/source-queue-view';
import { isConnectorKind } from '@/lib/connectors/types';
import { findSource } from '@/lib/model/find-source';
import { SourceView, sourceView } from './source-view';

export const SourceDetail = SourceView.extend({
  connector: z
    .object({
      health: ConnectorHealthView.nullable(),
      errorText: ErrorTextStatus,
      sourceQueue: SourceQueueView.nullable().describe('The source queue beside the DLQ, as the maintenance cycle last read it; null: never read'),
    })
    .nullable()
    .describe('Connector sources only'),
});
export type SourceDetail = z.infer<typeof SourceDetail>;
/** GET /api/v1/sources/{source}. */
export const SourceAnswer = z.object({ source: SourceDetail });
/** PATCH /api/v1/sources/{source}: the source after the change. */
export const ConnectionChangedView = SourceAnswer.extend({ changed: z.boolean().describe('false when nothing differed') });

export async function getSource(actor: Principal, sourceRef: string): Promise<SourceDetail> {
  const row = await findSource(actor, sourceRef, 'deadletters.read');
  const view = sourceView(row);
  if (!isConnectorKind(row.kind)) return { ...view, connector: null };
  const mapping = (view.connection?.errorText ?? undefined) as ErrorTextMapping | undefined;
  const [health, errorText, queues] = await Promise.all([connectorHealth([row.id]), errorTextStatus(row.id, mapping), sourceQueueReadings([row.id])]);
  return { ...view, connector: { health: health.get(row.id) ?? null, errorText, sourceQueue: queues.get(row.id) ?? null } };
}
