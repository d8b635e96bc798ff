// Who may ingest where: a per-source ingest token (only its SHA-256 is stored). One indexed query
// finds the source and checks the token; last_used_at is written at most once a minute per token,
// so a busy forwarder does not turn every batch into an extra UPDATE.
import type postgres from 'postgres';
import { bearerToken, hashToken, TOKEN_PREFIX } from '@/lib/auth/tokens';
import { groupingOf, type SourceGrouping } from '@/lib/clustering/grouping-rules';
import { isConnectorKind } from '@/lib/connectors/types';
import { AppError, unprocessable } from '@/lib/errors';

export interface IngestTarget {
  id: string;
  name: string;
  teamId: string;
  retentionSeconds: number;
  payloadLimitBytes: number;
  /** Read with the source, so the write path needs no second lookup. */
  grouping: SourceGrouping;
}

const SOURCE_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/**
 * A connector source's dead letters come from its broker alone: the broker's own headers (x-death, a
 * Sidekiq queue, an SQS envelope) say where its redrives go, so a forwarder may not write them.
 */
export const connectorFedSource = (name: string, kind: string) =>
  unprocessable(`Source "${name}" is fed by its ${kind} connector, not by the ingest API: ingest tokens are for sources of kind ingest`, {
    field: 'source',
  });

/** The source behind `/sources/{name}/…` if this Authorization header carries one of its live ingest tokens. */
export async function ingestTarget(sql: postgres.Sql, sourceName: string, authorization: string | null): Promise<IngestTarget> {
  if (!SOURCE_NAME.test(sourceName)) throw new AppError('not_found', `No source "${sourceName}"`);
  const token = bearerToken(authorization);
  const rows = await sql<
    {
      id: string;
      name: string;
      team_id: string;
      retention_seconds: number;
      payload_limit_bytes: number;
      grouping_rules: unknown;
      grouping_version: number;
      kind: string;
      token_id: string | null;
      stale: boolean | null;
    }[]
  >`
    SELECT s.id, s.name, s.team_id, s.retention_seconds, s.payload_limit_bytes, s.grouping_rules, s.grouping_version, s.kind::text AS kind, t.id AS token_id,
           (t.last_used_at IS NULL OR t.last_used_at < now() - interval '1 minute') AS stale
    FROM sources s
    LEFT JOIN api_tokens t ON t.token_hash = ${token ? hashToken(token) : ''} AND t.kind = 'ingest'
                          AND t.source_id = s.id AND t.revoked_at IS NULL
    WHERE s.name = ${sourceName}`;
  const s = rows[0];
  if (!s) throw new AppError('not_found', `No source "${sourceName}"`);
  if (!token?.startsWith(TOKEN_PREFIX.ingest) || !s.token_id) {
    throw new AppError('unauthorized', `Send a valid ingest token of source "${sourceName}": Authorization: Bearer ${TOKEN_PREFIX.ingest}…`, undefined, {
      'WWW-Authenticate': 'Bearer realm="ingest"',
    });
  }
  if (isConnectorKind(s.kind)) throw connectorFedSource(s.name, s.kind);
  if (s.stale) await sql`UPDATE api_tokens SET last_used_at = now() WHERE id = ${s.token_id}`;
  return {
    id: s.id,
    name: s.name,
    teamId: s.team_id,
    retentionSeconds: s.retention_seconds,
    payloadLimitBytes: s.payload_limit_bytes,
    grouping: groupingOf(s.grouping_rules, s.grouping_version),
  };
}
