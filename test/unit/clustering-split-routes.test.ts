// Where a new arrival goes after a person split its cluster (lib/clustering/split-routes.ts): the
// part of its value, split after split, following a part merged elsewhere, never in a circle.
import { describe, expect, it } from 'vitest';
import { routeThroughSplits, splitRoutesOf, valueDigest, type SplitNode, type SplitSubject } from '@/lib/clustering/split-routes';

const K = '00000000-0000-4000-8000-00000000000a';
const P = '00000000-0000-4000-8000-00000000000b';
const Q = '00000000-0000-4000-8000-00000000000c';
const X = '00000000-0000-4000-8000-00000000000d';

const arrival = (type: string, tenant = 'acme', errorType = 'OrderError'): SplitSubject => ({
  error_type: errorType,
  reason: 'Rejected',
  error_stack: null,
  headers: { 'X-Tenant': tenant },
  payload: () => ({ type }),
});
const byType = { by: { field: 'payload' as const, path: '$.type' }, parts: { [valueDigest('order.updated')]: P } };
const node = (routes: SplitNode['routes'], mergedInto: string | null = null): SplitNode => ({ routes, mergedInto });

describe('routing new arrivals through splits', () => {
  it('sends a split-off value to its part, and a kept or unseen value nowhere else', () => {
    const nodes = new Map([
      [K, node([byType])],
      [P, node([])],
    ]);
    expect(routeThroughSplits(K, nodes, arrival('order.updated'))).toBe(P);
    expect(routeThroughSplits(K, nodes, arrival('order.created'))).toBe(K);
    expect(routeThroughSplits(K, nodes, arrival('order.deleted'))).toBe(K);
  });

  it('takes the first split that knows the value, then the splits of the part it lands in', () => {
    const byTenant = { by: { field: 'header' as const, name: 'x-tenant' }, parts: { [valueDigest('globex')]: Q } };
    const byError = { by: { field: 'errorType' as const }, parts: { [valueDigest('RateError')]: X } };
    const nodes = new Map([
      [K, node([byType, byError])],
      [P, node([byTenant])],
      [Q, node([])],
      [X, node([])],
    ]);
    expect(routeThroughSplits(K, nodes, arrival('order.updated', 'globex'))).toBe(Q);
    expect(routeThroughSplits(K, nodes, arrival('order.updated', 'acme', 'RateError'))).toBe(P);
    expect(routeThroughSplits(K, nodes, arrival('order.created', 'globex', 'RateError'))).toBe(X);
  });

  it('follows a part merged elsewhere, stops where a part merged back came from, and never routes to a part it does not know', () => {
    expect(
      routeThroughSplits(
        K,
        new Map([
          [K, node([byType])],
          [P, node([], X)],
          [X, node([])],
        ]),
        arrival('order.updated'),
      ),
    ).toBe(X);
    expect(
      routeThroughSplits(
        K,
        new Map([
          [K, node([byType])],
          [P, node([], K)],
        ]),
        arrival('order.updated'),
      ),
    ).toBe(K);
    expect(routeThroughSplits(K, new Map([[K, node([byType])]]), arrival('order.updated'))).toBe(K);
  });

  it('reads a stored value of another shape as no splits', () => {
    expect(splitRoutesOf(null)).toEqual([]);
    expect(splitRoutesOf({ by: 'type' })).toEqual([]);
    expect(splitRoutesOf([byType])).toEqual([byType]);
  });
});
