// The pages a view can be saved of, each with its own filter schema (reused, never copied) and the
// permission that opens it. A view's filters are parsed by the page's schema and stored as the
// page writes them back, so a saved view cannot carry a filter the page does not know.
import { ZodError } from 'zod';
import type { Permission } from '@/lib/auth';
import { AUDIT_FILTER_KEYS, auditFilterFromSearch, auditFilterToSearch } from '@/lib/audit-trail/filter';
import { CLUSTER_FILTER_KEYS, clusterFiltersFromSearchParams, clusterFiltersToSearchParams } from '@/lib/clustering/list-clusters';
import { FILTER_KEYS, filtersFromSearchParams, filtersToSearchParams } from '@/lib/deadletters/filters';
import { unprocessable } from '@/lib/errors';

export const VIEW_PAGES = ['dead_letters', 'inbox', 'audit'] as const;
export type ViewPage = (typeof VIEW_PAGES)[number];

interface PageFilters {
  path: string;
  label: string;
  permission: Permission;
  keys: readonly string[];
  /** Parse (throws ZodError) and write back: the normalized query string. */
  normalize: (params: URLSearchParams) => URLSearchParams;
}

export const VIEW_PAGE: Record<ViewPage, PageFilters> = {
  dead_letters: {
    path: '/dead-letters',
    label: 'Dead letters',
    permission: 'deadletters.read',
    keys: FILTER_KEYS,
    normalize: (p) => filtersToSearchParams(filtersFromSearchParams(p)),
  },
  // The inbox shows open clusters only: its state is fixed, so it is not a filter of the inbox.
  inbox: {
    path: '/inbox',
    label: 'Inbox',
    permission: 'deadletters.read',
    keys: CLUSTER_FILTER_KEYS.filter((k) => k !== 'state'),
    normalize: (p) => clusterFiltersToSearchParams(clusterFiltersFromSearchParams(p)),
  },
  audit: {
    path: '/audit',
    label: 'Audit trail',
    permission: 'audit.read',
    keys: AUDIT_FILTER_KEYS,
    normalize: (p) => auditFilterToSearch(auditFilterFromSearch(p)),
  },
};

export type FiltersInput = string | Record<string, string | string[]>;

/**
 * The filters as the page's normalized query string: unknown keys and invalid values are a 422
 * naming the field. Accepts "a=1&b=2" (with or without "?") or { a: "1", b: ["2", "3"] }.
 */
export function normalizeFilters(page: ViewPage, input: FiltersInput | undefined): string {
  const params = new URLSearchParams();
  if (typeof input === 'string') for (const [k, v] of new URLSearchParams(input.replace(/^\?/, ''))) params.append(k, v);
  else if (input) for (const [k, v] of Object.entries(input)) for (const x of Array.isArray(v) ? v : [v]) params.append(k, String(x));
  const known = new Set(VIEW_PAGE[page].keys);
  for (const key of new Set(params.keys())) {
    if (!known.has(key))
      throw unprocessable(`"${key}" is not a filter of ${VIEW_PAGE[page].label} (known: ${[...known].join(', ')})`, { field: `filters.${key}` });
  }
  try {
    return VIEW_PAGE[page].normalize(params).toString();
  } catch (e) {
    if (!(e instanceof ZodError)) throw e;
    // The field is the filter's key (status), not the item's path in it (status.0).
    const issue = e.issues[0]!;
    throw unprocessable(`Filter ${issue.path.join('.')}: ${issue.message}`, { field: `filters.${String(issue.path[0])}` });
  }
}

/** Where a view opens: its page with its filters. */
export function viewHref(page: ViewPage, filters: string): string {
  return filters ? `${VIEW_PAGE[page].path}?${filters}` : VIEW_PAGE[page].path;
}
