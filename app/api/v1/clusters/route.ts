// GET /api/v1/clusters — a keyset page of clusters of the caller's sources, newest wave first, with counts, rate and a 24-hour sparkline
import { z } from 'zod';
import { api } from '@/lib/auth/guard';
import { clusterFiltersFromSearchParams, listClusters, MAX_CLUSTER_PAGE } from '@/lib/clustering/list-clusters';

export const GET = api('deadletters.read', async (req, { actor }) => {
  const url = new URL(req.url);
  const limit = z.coerce.number().int().min(1).max(MAX_CLUSTER_PAGE).default(50).parse(url.searchParams.get('limit') ?? undefined);
  return Response.json(await listClusters(actor, clusterFiltersFromSearchParams(url.searchParams), url.searchParams.get('cursor'), { limit }));
});
