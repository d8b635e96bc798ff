// GET /api/metrics — Prometheus metrics of the sources the caller may read (scrape with a personal API token)
import { api } from '@/lib/auth/guard';
import { renderMetrics } from '@/lib/metrics/render-metrics';
import { PROMETHEUS_TEXT } from '@/lib/openapi/media';

export const dynamic = 'force-dynamic';

export const GET = api(
  'deadletters.read',
  {
    summary: 'Prometheus metrics of the sources the caller may read',
    description:
      'Scrape with a personal API token: open dead letters, oldest ages, near-deadline and breached counts, totals by reason, alarm states (0 OK, 1 PENDING, 2 ALARM), active redrive progress and the search backlog, labelled by source. Figures are at most about 15 s old.',
    tags: ['operations'],
    responses: { 200: { description: 'Prometheus text exposition format', content: PROMETHEUS_TEXT } },
  },
  async ({ actor }) => {
    const { contentType, body } = await renderMetrics(actor);
    return new Response(body, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
  },
);
