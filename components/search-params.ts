// A page's query string, read the same way by every list page: Next's searchParams object as
// URLSearchParams, and a bad filter or cursor turned into a message on the page, not an error page.
import { ZodError } from 'zod';
import { AppError } from '@/lib/errors';

export type SearchParams = Record<string, string | string[] | undefined>;

export function toParams(sp: SearchParams): URLSearchParams {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(sp)) for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) p.append(k, x);
  return p;
}

/** The message a list page shows for a filter it cannot apply (ZodError or a 400); anything else is rethrown. */
export function problemMessage(e: unknown): string {
  if (e instanceof ZodError) return e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  if (e instanceof AppError && e.status === 400) return e.message;
  throw e;
}

/** The first value of a multi-valued filter, for a single <select>. */
export const first = (v: readonly string[] | undefined): string => v?.[0] ?? '';
