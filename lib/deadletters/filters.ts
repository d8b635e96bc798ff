// What a list, a count, an export or a bulk selection of dead letters can be narrowed by. One schema
// for the page's query string, the JSON API, saved selections (bulk decisions, redrive tasks) and
// "all members of a cluster" (clusterId).
import { z } from 'zod';
import { AppError } from '@/lib/errors';
import { DEAD_LETTER_REASONS, DEAD_LETTER_STATUSES } from '@/lib/enums';

export { DEAD_LETTER_STATUSES, type DeadLetterStatus } from '@/lib/enums';

// A query string says "a,b" or repeats the key; JSON says ["a", "b"] or "a".
export const oneOrMany = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : v,
    z.array(item).max(100),
  );

// The error-type filter of the dead-letter and cluster lists: a part of the type in any case, as the
// page's free-text "Error type" box invites ("timeout" finds SocketTimeoutException); the dead-letter
// query resolves it to the exact types it matches before its index branches (lib/deadletters/query.ts).
export const errorTypeFilter = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .optional()
  .describe('A part of the error type, any case ("timeout" matches SocketTimeoutException); % and _ match themselves');

export const deadLetterFilters = z
  .object({
    source: oneOrMany(z.string().min(1).max(63)).optional().describe('Source names'),
    status: oneOrMany(z.enum(DEAD_LETTER_STATUSES)).optional().describe('Statuses, comma-separated'),
    reason: oneOrMany(z.enum(DEAD_LETTER_REASONS)).optional().describe('Reasons, comma-separated'),
    errorType: errorTypeFilter,
    clusterId: z.uuid().optional().describe('Members of one cluster'),
    messageId: z.string().min(1).max(1024).optional().describe('Exact message id'),
    from: z.coerce.date().optional().describe('Dead at or after (ISO 8601)'),
    to: z.coerce.date().optional().describe('Dead before (ISO 8601)'),
    // Three characters at least: shorter strings have no trigram, so no index could serve them.
    q: z.string().trim().min(3, 'search needs at least 3 characters').max(200).optional().describe('Substring of the error message or payload text'),
    sort: z.enum(['newest', 'oldest']).default('newest').describe('By dead-letter time'),
  })
  .describe('Dead-letter filters');

export type DeadLetterFilters = z.output<typeof deadLetterFilters>;
export type DeadLetterFiltersInput = z.input<typeof deadLetterFilters>;

export const FILTER_KEYS = Object.keys(deadLetterFilters.shape) as (keyof DeadLetterFilters)[];

/**
 * A filter schema's query string (list pages, their links, the list routes): each key once, its
 * non-empty values joined by commas; a link leaves out a value the schema defaults to.
 */
export function filterQueryString<F extends Record<string, unknown>>(
  schema: { parse(raw: unknown): F },
  keys: readonly (keyof F & string)[],
  defaults: Partial<F>,
) {
  return {
    /** Filters from a query string (other keys, such as cursor or format, are left to the caller). */
    fromSearchParams(params: URLSearchParams): F {
      const raw: Record<string, string> = {};
      for (const key of keys) {
        const all = params.getAll(key).filter((v) => v !== '');
        if (all.length) raw[key] = all.join(',');
      }
      return schema.parse(raw);
    },
    /** The filters as a query string (for links: next page, export, the same view again). */
    toSearchParams(filters: Partial<F>): URLSearchParams {
      const p = new URLSearchParams();
      for (const key of keys) {
        const v = filters[key];
        if (v === undefined || v === defaults[key]) continue;
        p.set(key, Array.isArray(v) ? v.join(',') : v instanceof Date ? v.toISOString() : String(v));
      }
      return p;
    },
  };
}

export const { fromSearchParams: filtersFromSearchParams, toSearchParams: filtersToSearchParams } = filterQueryString(deadLetterFilters, FILTER_KEYS, {
  sort: 'newest',
});

/** Keyset position: the last row's dead-letter time and id. Opaque to clients. */
export interface Cursor {
  deadAt: Date;
  id: bigint;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.deadAt.getTime()}.${c.id}`).toString('base64url');
}

export function decodeCursor(s: string | null | undefined): Cursor | undefined {
  if (!s) return undefined;
  const m = /^(-?\d{1,15})\.(\d{1,19})$/.exec(Buffer.from(s, 'base64url').toString());
  if (!m) throw new AppError('bad_request', 'cursor is not valid: pass nextCursor from a previous page', { field: 'cursor' });
  return { deadAt: new Date(Number(m[1])), id: BigInt(m[2]!) };
}
