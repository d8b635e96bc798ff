// OpenAPI: webhooks — where a team's alarm notifications go (lead of the team, admin; session cookie or personal API token).
// Response bodies are the views of lib/notifications/webhooks.ts (docs/style.md "Views").
import {
  CreatedWebhookView,
  DeliveryListView,
  DeliveryView,
  OneWebhookView,
  TestWebhookView,
  WebhookListView,
  WebhookView,
  webhookInput,
  webhookPatch,
} from '@/lib/notifications/webhooks';
import { errors, idParam, jsonContent, schemaOf, viewOf, type OpenApiArea } from './area';

const security = [{ apiToken: [] }, { session: [] }];

const id = idParam('id', 'Webhook id');
const one = jsonContent(viewOf(OneWebhookView));

export const notificationsArea: OpenApiArea = {
  tag: {
    name: 'notifications',
    description:
      "Webhooks that receive a team's alarm notifications, signed with a per-webhook secret. Managed by the team's lead and admins; another team's webhook answers 404. Every change is audited.",
  },
  schemas: { Webhook: viewOf(WebhookView), WebhookDelivery: viewOf(DeliveryView) },
  paths: {
    '/api/v1/webhooks': {
      get: {
        tags: ['notifications'],
        summary: 'List the webhooks of the teams the caller manages (lead, admin)',
        security,
        responses: {
          '200': { description: 'The webhooks', content: jsonContent(viewOf(WebhookListView)) },
          ...errors(401, 403),
        },
      },
      post: {
        tags: ['notifications'],
        summary: 'Add a webhook (lead, admin)',
        description: "A lead's webhook is for their own team; an admin names the team. The signing secret is in this answer only. Audited as webhook.create.",
        security,
        requestBody: { required: true, content: jsonContent(schemaOf(webhookInput)) },
        responses: {
          '201': {
            description: 'Created',
            content: jsonContent(viewOf(CreatedWebhookView)),
          },
          ...errors(400, 401, 403, 413, 415, 422),
        },
      },
    },
    '/api/v1/webhooks/{id}': {
      patch: {
        tags: ['notifications'],
        summary: 'Change its URL or switch it on or off (lead, admin)',
        description: 'Audited as webhook.update with before and after.',
        security,
        parameters: [id],
        requestBody: { required: true, content: jsonContent(schemaOf(webhookPatch)) },
        responses: { '200': { description: 'The webhook', content: one }, ...errors(400, 401, 403, 404, 413, 415, 422) },
      },
      delete: {
        tags: ['notifications'],
        summary: 'Remove it (lead, admin)',
        description: 'Its delivery log goes with it; the audit trail stays (webhook.delete).',
        security,
        parameters: [id],
        responses: { '204': { description: 'Removed' }, ...errors(401, 403, 404) },
      },
    },
    '/api/v1/webhooks/{id}/test': {
      post: {
        tags: ['notifications'],
        summary: 'Queue a test message (lead, admin)',
        description: 'Sent whether the webhook is enabled or not; the outcome shows in the delivery log. Audited as webhook.test.',
        security,
        parameters: [id],
        responses: {
          '202': { description: 'Queued', content: jsonContent(viewOf(TestWebhookView)) },
          ...errors(401, 403, 404),
        },
      },
    },
    '/api/v1/webhooks/{id}/deliveries': {
      get: {
        tags: ['notifications'],
        summary: "The webhook's delivery log, newest first (the latest 100)",
        security,
        parameters: [id],
        responses: {
          '200': { description: 'The deliveries', content: jsonContent(viewOf(DeliveryListView)) },
          ...errors(401, 403, 404),
        },
      },
    },
  },
};
