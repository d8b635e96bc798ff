// The cluster list's query string, read the same way by the inbox and /clusters.
import { ZodError } from 'zod';
import { AppError } from '@/lib/errors';
import { clusterFilters, clusterFiltersFromSearchParams, listClusters, type ClusterFilters, type ClusterPage } from '@/lib/clustering/list-clusters';
import type { Principal } from '@/lib/auth';

export type SearchParams = Record<string, string | string[] | undefined>;

export function toParams(sp: SearchParams): URLSearchParams {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(sp)) for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) p.append(k, x);
  return p;
}

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
    if (e instanceof ZodError) return { filters, page: { clusters: [], nextCursor: null }, problem: e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
    if (e instanceof AppError && e.status === 400) return { filters, page: { clusters: [], nextCursor: null }, problem: e.message };
    throw e;
  }
}
