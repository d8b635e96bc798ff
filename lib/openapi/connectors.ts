// OpenAPI: connector sources — one source with its connector's health, changing its connection,
// testing it, pausing and resuming its import (session cookie or personal API token).
// Response bodies are the views of lib/sources and lib/connectors (docs/style.md "Views").
import { ConnectionChangedView, SourceAnswer } from '@/lib/sources/get-source';
import { connectionPatch } from '@/lib/sources/update-connection';
import { ImportSwitchView, importSwitchBody } from '@/lib/connectors/pause-import';
import { ConnectionTestView } from '@/lib/connectors/test-connection';
import { sqsConfigSchema } from '@/lib/connectors/sqs/config';
import { errors, idParam, jsonContent, ref, schemaOf, viewOf, type OpenApiArea } from './area';

const security = [{ apiToken: [] }, { session: [] }];
const source = idParam('source', 'Source name (or id)');

export const connectorsArea: OpenApiArea = {
  tag: {
    name: 'connectors',
    description:
      "Sources that read a broker's own dead-letter queue (RabbitMQ, another app's BullMQ, Amazon SQS, NATS JetStream, Azure Storage queues such as Azure Functions' poison queues). Credentials are encrypted at rest and never returned, only whether they are set.",
  },
  schemas: {
    SourceDetail: viewOf(SourceAnswer),
    ConnectionPatch: schemaOf(connectionPatch),
    ConnectionTest: viewOf(ConnectionTestView),
    ImportSwitch: viewOf(ImportSwitchView),
    // An SQS source's `connection`: its `envelope` says what wraps the failed events (AWS failure records).
    SqsConnection: schemaOf(sqsConfigSchema),
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
          '200': { description: 'Saved (changed: false when nothing differed)', content: jsonContent(viewOf(ConnectionChangedView)) },
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
