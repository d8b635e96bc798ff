// A page's query string, read the same way by every list page: Next's searchParams object as
// URLSearchParams, and a bad filter or cursor turned into a message on the page, not an error page.
import { ZodError } from 'zod';
import { AppError } from '@/lib/errors';
import { plainIssue } from '@/lib/plain-issues';

export type SearchParams = Record<string, string | string[] | undefined>;

export function toParams(sp: SearchParams): URLSearchParams {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(sp)) for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) p.append(k, x);
  return p;
}

/** The filter form's labels (components/filter-fields.tsx), by query key: what a problem names. */
export const FILTER_LABELS: Record<string, string> = {
  q: 'Search payload and error text',
  source: 'Source',
  status: 'Status',
  reason: 'Reason',
  errorType: 'Error type',
  clusterId: 'Cluster',
  messageId: 'Message ID',
  from: 'From',
  to: 'To',
  sort: 'Sort',
};

/** A filter's refusal in plain sentences, each naming the field by its label in the form. */
export function filterProblem(e: ZodError, labels: Record<string, string> = FILTER_LABELS): string {
  return e.issues.map((i) => plainIssue(i, { label: labels[String(i.path[0])] })).join(' ');
}

/** The message a list page shows for a filter it cannot apply (ZodError or a 400); anything else is rethrown. */
export function problemMessage(e: unknown): string {
  if (e instanceof ZodError) return filterProblem(e);
  if (e instanceof AppError && e.status === 400) return e.message;
  throw e;
}

/** The first value of a multi-valued filter, for a single <select>. */
export const first = (v: readonly string[] | undefined): string => v?.[0] ?? '';
