// GET /api/v1/sources — sources the caller may read
// POST /api/v1/sources — create a source (admin)
import { jsonRoute } from '@/lib/auth/guard';
import { createSource, sourceInput, CreatedSourceView } from '@/lib/sources/create-source';
import { listSourceViews, SourceListView } from '@/lib/sources/list-sources';

export const GET = jsonRoute('deadletters.read', ({ actor }) => listSourceViews(actor), {
  summary: 'List the sources the caller may read, by name',
  description: "No secret is ever included: not the redrive secret, not a connector's credentials (only whether they are set).",
  tags: ['sources'],
  responses: { 200: { description: 'The sources', view: SourceListView } },
});

export const POST = jsonRoute(
  'admin.manage',
  async ({ actor, body }) => {
    const s = await createSource(actor, body);
    return { id: s.id, name: s.name, kind: s.kind };
  },
  {
    summary: 'Create a source (admin)',
    description:
      'Names are lowercase and become queue names and URL segments. A connector kind (rabbitmq, bullmq, sqs, nats, sidekiq, azure_queue) takes `connection` (its settings, checked by the connector: e.g. { "queue": "orders.dlq", "managementUrl": "http://host:15672", "errorText": { "messageHeader": "x-error" } }, or for sidekiq { "namespace": "shop" }) and `secret` (e.g. { "url": "amqp://user:pass@host:5672/vhost" }, or for sidekiq { "url": "redis://:pass@host:6379/0" }), encrypted at rest and never returned. An sqs source\'s `connection` is an SqsConnection: its `envelope` (auto, none, lambda-destination, lambda-dlq, eventbridge, sns) says what wraps the failed events. An azure_queue source takes e.g. `connection` { "queue": "orders-poison", "encoding": "base64", "errorText": { "messagePath": "$.error" } } (a `-poison` queue redrives to its own queue unless `targetQueue` is set) and `secret` { "connectionString": "DefaultEndpointsProtocol=https;AccountName=…;AccountKey=…" } or { "accountName", "accountKey" } with `connection.endpoint`. Audited as source.create, the credentials redacted.',
    tags: ['sources'],
    responses: { 201: { description: 'Created', view: CreatedSourceView } },
    errors: [400, 409],
    body: sourceInput,
  },
);
