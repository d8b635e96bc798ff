// OpenAPI: connector sources — one source with its connector's health, changing its connection,
// testing it, pausing and resuming its import (session cookie or personal API token).
import { z } from 'zod';
import { connectionPatch } from '@/lib/sources/update-connection';
import { importSwitchBody } from '@/lib/connectors/pause-import';
import { errors, idParam, jsonContent, ref, schemaOf, type OpenApiArea } from './area';

const security = [{ apiToken: [] }, { session: [] }];
const ts = z.iso.datetime();
const source = idParam('source', 'Source name (or id)');

const health = z.object({
  lastPollAt: ts.nullable().describe('Last time the import reported anything'),
  lastSuccessAt: ts.nullable().describe('Last successful poll or committed batch'),
  importedTotal: z.int().describe('Dead letters imported (new rows)'),
  lag: z.int().nullable().describe('Messages left on the broker at the last poll'),
  lastError: z.string().nullable().describe('The last failure, in words (never a credential)'),
  lastErrorAt: ts.nullable(),
  consecutiveFailures: z.int().describe('Failed attempts in a row; 0 while all is well'),
});
const errorText = z.object({
  mapped: z.boolean().describe('The source names its own error headers or JSON paths'),
  seen: z.boolean().describe('Some dead letter carried error text'),
  notice: z.string().nullable().describe('Set when neither: clusters will group by reason only'),
});
const detail = z.object({
  source: z.looseObject({
    name: z.string(),
    kind: z.string(),
    connection: z.record(z.string(), z.unknown()).nullable(),
    credentialsSet: z.boolean().nullable(),
    importPaused: z.boolean(),
    connector: z.object({ health: health.nullable(), errorText }).nullable().describe('Connector sources only'),
  }),
});
const probe = z.object({
  source: z.object({ id: z.uuid(), name: z.string(), kind: z.string() }),
  testedAt: ts,
  ok: z.boolean(),
  summary: z.string().describe('One line, e.g. "Queue \\"orders.dlq\\" exists: 12 messages, 0 consumers"'),
  facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).describe('exists, depth, consumers; with a management URL: arguments, bound exchanges'),
  error: z.string().optional(),
  warnings: z.array(z.string()).optional().describe('What works but will hurt, e.g. SQS: a DLQ whose retention is not longer than its source queue'),
});
const importSwitch = z.object({ id: z.uuid(), name: z.string(), importPaused: z.boolean(), changed: z.boolean() });

export const connectorsArea: OpenApiArea = {
  tag: {
    name: 'connectors',
    description:
      "Sources that read a broker's own dead-letter queue (RabbitMQ, another app's BullMQ, Amazon SQS, NATS JetStream). Credentials are encrypted at rest and never returned, only whether they are set.",
  },
  schemas: {
    SourceDetail: schemaOf(detail, 'output'),
    ConnectionPatch: schemaOf(connectionPatch),
    ConnectionTest: schemaOf(probe, 'output'),
    ImportSwitch: schemaOf(importSwitch, 'output'),
  },
  paths: {
    '/api/v1/sources/{source}': {
      get: {
        tags: ['connectors'],
        summary: "One source: its settings (never a secret) and, for a connector source, its import's health",
        security,
        parameters: [source],
        responses: { '200': { description: 'The source', content: jsonContent(ref('SourceDetail')) }, ...errors(401, 403, 404) },
      },
      patch: {
        tags: ['connectors'],
        summary: "Change a connector source's connection or replace its credentials (admin)",
        description:
          'Settings sent are merged into the stored ones (null removes one) and checked whole by the connector; secret fields sent replace the stored ones, those left out are kept. The import restarts with them within CONNECTOR_DISCOVERY_MS. Audited as source.connection.update, credentials redacted.',
        security,
        parameters: [source],
        requestBody: { required: true, content: jsonContent(ref('ConnectionPatch')) },
        responses: {
          '200': { description: 'Saved (changed: false when nothing differed)', content: jsonContent({ ...ref('SourceDetail'), description: 'plus "changed": boolean' }) },
          ...errors(400, 401, 403, 404, 413, 415, 422),
        },
      },
    },
    '/api/v1/sources/{source}/connection-test': {
      post: {
        tags: ['connectors'],
        summary: "Test a connector source's connection: the queue exists, its depth and consumers (lead of the team, admin)",
        description: 'A failed probe (broker down, wrong credentials, no such queue) is still a 200 with ok: false and the error in words. Bounded to 10 s. Not audited: nothing changes.',
        security,
        parameters: [source],
        responses: { '200': { description: 'What the probe learnt', content: jsonContent(ref('ConnectionTest')) }, ...errors(401, 403, 404, 422) },
      },
    },
    '/api/v1/sources/{source}/import/pause': {
      post: {
        tags: ['connectors'],
        summary: "Pause a connector source's import (lead of the team, admin); messages wait on the broker",
        description: 'Body { reason? } (optional). The connectors worker stops after the batch in flight. Audited as source.import.pause.',
        security,
        parameters: [source],
        requestBody: { required: false, content: jsonContent(schemaOf(importSwitchBody)) },
        responses: { '200': { description: 'The switch', content: jsonContent(ref('ImportSwitch')) }, ...errors(400, 401, 403, 404, 413, 415, 422) },
      },
    },
    '/api/v1/sources/{source}/import/resume': {
      post: {
        tags: ['connectors'],
        summary: "Resume a connector source's import (lead of the team, admin)",
        description: 'Body { reason? } (optional). Audited as source.import.resume.',
        security,
        parameters: [source],
        requestBody: { required: false, content: jsonContent(schemaOf(importSwitchBody)) },
        responses: { '200': { description: 'The switch', content: jsonContent(ref('ImportSwitch')) }, ...errors(400, 401, 403, 404, 413, 415, 422) },
      },
    },
  },
};
