// What a client may see of a source row: never a secret. The redrive secret and a connector's
// credentials (the URL with its password) appear only as "set or not"; the ciphertext itself is
// not returned either, since it is only as safe as the key beside it. The view names its fields,
// so a column added to the table is not shown until it is added here (and to the OpenAPI document,
// which is generated from SourceView).
import { z } from 'zod';
import type { Source } from '@/generated/prisma/client';
import { isConnectorKind } from '@/lib/connectors/types';
import { sensitivePathsOf } from '@/lib/masking';
import { dateTime } from '@/lib/wire';
import { SOURCE_KINDS } from '@/lib/model/source-kind';
import { redactUrl } from '@/lib/outbound/redact-url';

export const SourceView = z.object({
  id: z.uuid(),
  name: z.string(),
  teamId: z.uuid(),
  team: z.string().describe("The owning team's name"),
  kind: z.enum(SOURCE_KINDS),
  description: z.string().nullable(),
  maxReceives: z.int(),
  visibilityTimeoutMs: z.int(),
  backoffBaseMs: z.int(),
  backoffCapMs: z.int(),
  maxRedrives: z.int(),
  retentionSeconds: z.int(),
  ageDeadlineSeconds: z.int(),
  alarmRatePending: z.int(),
  alarmRateAlarm: z.int(),
  orderMode: z.enum(['none', 'key']),
  approvalThreshold: z.int(),
  editApprovalThreshold: z.int().describe('Edits and transforms of this many dead letters or more wait for a second person'),
  payloadLimitBytes: z.int(),
  redriveUrl: z.string().nullable(),
  redriveSecretSet: z.boolean().describe('The redrive secret is never shown, only whether one is set'),
  redriveAllowedFrom: z.array(z.uuid()).describe('Ids of the sources that may redrive into this one'),
  sensitivePaths: z.array(z.string()).describe('JSON paths masked for roles without payload.reveal'),
  maskingRecomputeFrom: z.string().nullable().describe('While stored masking verdicts are recomputed after a change of paths: the next dead-letter id'),
  groupingRules: z.unknown().nullable().describe('See GET /api/v1/sources/{source}/grouping-rules'),
  groupingVersion: z.int(),
  connection: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('Connector sources: the non-secret settings (queue, target queue, management URL, error-text mapping…); null for other kinds'),
  credentialsSet: z.boolean().nullable().describe('Connector sources: whether credentials are stored. They are never returned, in any form'),
  importPaused: z.boolean().describe('Connector sources: import paused by a user'),
  createdAt: dateTime,
  updatedAt: dateTime,
});
export type SourceView = z.infer<typeof SourceView>;

/** A source row as read for a view: the ciphertext where read with it; list reads carry only `credentialsStored`. */
export type SourceRow = Omit<Source, 'connectionSecret'> & { connectionSecret?: Uint8Array | null; credentialsStored?: boolean; team: { name: string } };

export function sourceView(row: SourceRow): SourceView {
  const connector = isConnectorKind(row.kind);
  return {
    id: row.id,
    name: row.name,
    teamId: row.teamId,
    team: row.team.name,
    kind: row.kind,
    description: row.description,
    maxReceives: row.maxReceives,
    visibilityTimeoutMs: row.visibilityTimeoutMs,
    backoffBaseMs: row.backoffBaseMs,
    backoffCapMs: row.backoffCapMs,
    maxRedrives: row.maxRedrives,
    retentionSeconds: row.retentionSeconds,
    ageDeadlineSeconds: row.ageDeadlineSeconds,
    alarmRatePending: row.alarmRatePending,
    alarmRateAlarm: row.alarmRateAlarm,
    orderMode: row.orderMode,
    approvalThreshold: row.approvalThreshold,
    editApprovalThreshold: row.editApprovalThreshold,
    payloadLimitBytes: row.payloadLimitBytes,
    // Scheme and host: a token in its path or query is for the policy view's owners only.
    redriveUrl: redactUrl(row.redriveUrl),
    redriveSecretSet: row.redriveSecret !== null,
    redriveAllowedFrom: row.redriveAllowedFrom,
    sensitivePaths: sensitivePathsOf(row.sensitivePaths),
    maskingRecomputeFrom: row.maskingRecomputeFrom?.toString() ?? null,
    groupingRules: row.groupingRules,
    groupingVersion: row.groupingVersion,
    // Connector sources only: the non-secret settings, and whether credentials are stored.
    connection: connector ? ((row.connection ?? {}) as Record<string, unknown>) : null,
    credentialsSet: connector ? (row.credentialsStored ?? (row.connectionSecret !== null && row.connectionSecret !== undefined)) : null,
    importPaused: row.importPaused,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
