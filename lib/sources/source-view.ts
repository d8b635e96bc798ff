// What a client may see of a source row: never a secret. The redrive secret and a connector's
// credentials (the URL with its password) appear only as "set or not"; the ciphertext itself is
// not returned either, since it is only as safe as the key beside it.
import { isConnectorKind } from '@/lib/connectors/types';

type SourceRow = {
  redriveSecret: string | null;
  /** The ciphertext where the row was read with it; list reads carry only `credentialsStored`. */
  connectionSecret?: Uint8Array | null;
  credentialsStored?: boolean;
  connection: unknown;
  kind: string;
  team: { name: string };
};

export function sourceView<T extends SourceRow>(row: T) {
  const { redriveSecret, connectionSecret, credentialsStored, connection, team, ...rest } = row;
  return {
    ...rest,
    team: team.name,
    redriveSecretSet: redriveSecret !== null,
    // Connector sources only: the non-secret settings, and whether credentials are stored.
    connection: isConnectorKind(row.kind) ? ((connection ?? {}) as Record<string, unknown>) : null,
    credentialsSet: isConnectorKind(row.kind) ? (credentialsStored ?? (connectionSecret !== null && connectionSecret !== undefined)) : null,
  };
}
export type SourceView = ReturnType<typeof sourceView>;
