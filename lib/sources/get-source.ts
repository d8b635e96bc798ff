// One source as a client may see it (GET /api/v1/sources/:source, the source page): its settings
// without any secret and, for a connector source, its import's health and whether its dead letters
// will carry error text to cluster by.
import type { Principal } from '@/lib/auth';
import { connectorHealth, errorTextStatus, type ConnectorHealthView, type ErrorTextStatus } from '@/lib/connectors/health';
import type { ErrorTextMapping } from '@/lib/connectors/error-text';
import { isConnectorKind } from '@/lib/connectors/types';
import { findSource } from './find-source';
import { sourceView, type SourceView } from './source-view';

export interface SourceDetail extends SourceView {
  importPaused: boolean;
  /** Connector sources only. */
  connector: { health: ConnectorHealthView | null; errorText: ErrorTextStatus } | null;
}

export async function getSource(actor: Principal, sourceRef: string): Promise<SourceDetail> {
  const row = await findSource(actor, sourceRef, 'deadletters.read');
  const view = sourceView(row);
  if (!isConnectorKind(row.kind)) return { ...view, connector: null };
  const mapping = (view.connection?.errorText ?? undefined) as ErrorTextMapping | undefined;
  const [health, errorText] = await Promise.all([connectorHealth([row.id]), errorTextStatus(row.id, mapping)]);
  return { ...view, connector: { health: health.get(row.id) ?? null, errorText } };
}
