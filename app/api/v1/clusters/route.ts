// GET /api/v1/clusters — a keyset page of clusters of the caller's sources, newest wave first, with counts, rate and a 24-hour sparkline
import { jsonRoute } from '@/lib/auth/guard';
import { clusterListQuery, listClusters, ClusterPage } from '@/lib/clustering/list-clusters';

export const GET = jsonRoute('deadletters.read', ({ actor, query: { cursor, limit, ...filters } }) => listClusters(actor, filters, cursor ?? null, { limit }), {
  summary: 'List clusters, newest wave first (keyset pages)',
  tags: ['clusters'],
  responses: { 200: { description: 'A page', view: ClusterPage } },
  errors: [400],
  query: clusterListQuery,
});
