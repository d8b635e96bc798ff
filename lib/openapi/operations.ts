// OpenAPI: running Triage — readiness, Prometheus metrics and this document.
// Response bodies are the views of lib/health.ts (docs/style.md "Views").
import { HealthView } from '@/lib/health';
import { errors, jsonContent, ref, viewOf, type OpenApiArea } from './area';

const openapi = {
  tags: ['operations'],
  summary: 'This OpenAPI 3.1 document of the whole API',
  description: 'Public: it describes, it grants nothing. Cacheable for 5 minutes.',
  security: [],
  responses: { '200': { description: 'The document', content: jsonContent({ type: 'object', description: 'An OpenAPI 3.1 document' }) } },
};

export const operationsArea: OpenApiArea = {
  tag: { name: 'operations', description: 'Readiness probe, Prometheus metrics and the API description.' },
  schemas: { Health: viewOf(HealthView) },
  paths: {
    '/api/health': {
      get: {
        tags: ['operations'],
        summary: 'Readiness: Postgres and Redis reachable, Redis safe for BullMQ',
        description: 'No credentials: ok or not ok, nothing more. With an admin\'s personal API token or session, each check and why it failed. Each check gives up after 3 s.',
        security: [],
        responses: {
          '200': { description: 'Ready', content: jsonContent(ref('Health')) },
          '503': { description: 'Not ready (for an admin, the failing check names why)', content: jsonContent(ref('Health')) },
        },
      },
    },
    '/api/metrics': {
      get: {
        tags: ['operations'],
        summary: 'Prometheus metrics of the sources the caller may read',
        description:
          'Scrape with a personal API token: open dead letters, oldest ages, near-deadline and breached counts, totals by reason, alarm states (0 OK, 1 PENDING, 2 ALARM), active redrive progress and the search backlog, labelled by source. Figures are at most about 15 s old.',
        security: [{ apiToken: [] }, { session: [] }],
        responses: {
          '200': { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } },
          ...errors(401, 403),
        },
      },
    },
    '/api/v1/openapi': { get: openapi },
    '/api/v1/openapi.json': { get: { ...openapi, summary: 'This OpenAPI document, under the file name tools look for' } },
  },
};
