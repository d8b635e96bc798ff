// GET /api/metrics — Prometheus metrics of the sources the caller may read (scrape with a personal API token)
import { api } from '@/lib/auth/guard';
import { renderMetrics } from '@/lib/metrics/render-metrics';

export const dynamic = 'force-dynamic';

export const GET = api('deadletters.read', {}, async ({ actor }) => {
  const { contentType, body } = await renderMetrics(actor);
  return new Response(body, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
});
