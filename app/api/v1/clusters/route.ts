// GET /api/v1/clusters — a keyset page of clusters of the caller's sources, newest wave first, with counts, rate and a 24-hour sparkline
import { api } from '@/lib/auth/guard';
import { clusterListQuery, listClusters, ClusterPage } from '@/lib/clustering/list-clusters';

export const GET = api(
  'deadletters.read',
  {
    summary: 'List clusters, newest wave first (keyset pages)',
    tags: ['clusters'],
    responses: { 200: { description: 'A page', view: ClusterPage } },
    errors: [400],
    query: clusterListQuery,
  },
  async ({ actor, query: { cursor, limit, ...filters } }) => {
    return Response.json(await listClusters(actor, filters, cursor ?? null, { limit }));
  },
);
