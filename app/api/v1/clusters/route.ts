// GET /api/v1/clusters — a keyset page of clusters of the caller's sources, newest wave first, with counts, rate and a 24-hour sparkline
import { api } from '@/lib/auth/guard';
import { clusterListQuery, listClusters } from '@/lib/clustering/list-clusters';

export const GET = api('deadletters.read', { query: clusterListQuery }, async ({ actor, query: { cursor, limit, ...filters } }) => {
  return Response.json(await listClusters(actor, filters, cursor ?? null, { limit }));
});
