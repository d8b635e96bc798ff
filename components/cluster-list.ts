// The cluster list's query string, read the same way by the inbox and /clusters.
import { clusterFilters, clusterFiltersFromSearchParams, listClusters, type ClusterFilters, type ClusterPage } from '@/lib/clustering/list-clusters';
import type { Principal } from '@/lib/auth';
import { problemMessage } from './search-params';

/** One page for the query string; a bad filter or cursor is a message on the page, not an error page. */
export async function clusterPageFor(
  actor: Principal,
  params: URLSearchParams,
  fixed: Partial<ClusterFilters> = {},
): Promise<{ filters: ClusterFilters; page: ClusterPage; problem: string | null }> {
  let filters = clusterFilters.parse(fixed);
  try {
    filters = { ...clusterFiltersFromSearchParams(params), ...fixed };
    return { filters, page: await listClusters(actor, filters, params.get('cursor')), problem: null };
  } catch (e) {
    return { filters, page: { clusters: [], nextCursor: null }, problem: problemMessage(e) };
  }
}
