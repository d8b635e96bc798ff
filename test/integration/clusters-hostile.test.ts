// Cluster corrections from where an attacker stands: a split or a grouping rule by a payload field
// that holds a sensitive value below it, a value Postgres cannot store as text, and a payload built
// to make a path walk deep. None may show a masked value, refuse a batch or stall the ingest path.
import { describe, expect, it } from 'vitest';
import { MINUTE } from '@/lib/clock';
import { db } from '@/lib/db';
import type { NewDeadLetter } from '@/lib/intake/record-dead-letters';
import { getCluster } from '@/lib/clustering/get-cluster';
import { listClusters } from '@/lib/clustering/list-clusters';
import { setGroupingRules } from '@/lib/clustering/set-grouping-rules';
import { previewSplit, splitCluster } from '@/lib/clustering/split-cluster';
import { clusterFixtures, clusterOf, groupBySensitive, record } from './cluster-support';

const NOW = new Date('2026-11-20T10:30:00Z');
const SSN = '123-45-6789';
const { fx, as } = clusterFixtures();
let seq = 0;

const lead = () => as('lead@triage.local');
const auditor = () => as('auditor@triage.local');

function poison(payload: string | unknown, message = 'unknown field "gift" in order'): NewDeadLetter {
  return {
    messageId: `h-${++seq}`,
    payload: new TextEncoder().encode(typeof payload === 'string' ? payload : JSON.stringify(payload)),
    reason: 'Rejected',
    errorType: 'OrderSchemaError',
    errorMessage: message,
    errorStack: `OrderSchemaError: ${message}\n    at handleOrder (/app/lib/orders/handleOrder.ts:48:11)`,
    deadAt: new Date(NOW.getTime() - 10 * MINUTE),
  };
}

describe('cluster corrections under hostile input', () => {
  it('a split by a field above a sensitive path shows no sensitive value: preview, clusters, audit', async () => {
    const { orders } = fx.sources;
    await db().source.update({ where: { id: orders.id }, data: { sensitivePaths: ['$.customer.ssn'] } });
    const recorded = await record(orders, [
      poison({ customer: { name: 'Jane', ssn: SSN }, n: 1 }),
      poison({ customer: { name: 'Joe', ssn: '987-65-4321' }, n: 2 }),
    ]);
    const id = await clusterOf(recorded[0]!.id);
    const by = { field: 'payload' as const, path: '$.customer' };
    const preview = await previewSplit(lead(), id, { by });
    expect(JSON.stringify(preview)).not.toContain(SSN);
    await splitCluster(lead(), id, { by, reason: 'by customer' });
    const clusters = await listClusters(auditor(), {});
    expect(JSON.stringify(clusters)).not.toContain(SSN);
    const events = await db().auditEvent.findMany({ where: { action: 'cluster.split' } });
    expect(JSON.stringify(events, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))).not.toContain(SSN);
  });

  it('a grouping rule by a field above a sensitive path shows no sensitive value in "grouped by"', async () => {
    const { orders } = fx.sources;
    await groupBySensitive(lead(), orders, '$.customer.ssn', '$.customer', 'by customer');
    const [rec] = await record(orders, [poison({ customer: { name: 'Jane', ssn: SSN } })]);
    const cluster = await getCluster(auditor(), await clusterOf(rec!.id));
    expect(JSON.stringify(cluster)).not.toContain(SSN);
    const [row] = await db().$queryRaw<{ grouped_by: string | null }[]>`SELECT grouped_by FROM clusters WHERE id = ${cluster.id}::uuid`;
    expect(row!.grouped_by ?? '').not.toContain(SSN);
  });

  it('records a batch whose grouped-by value holds a NUL character', async () => {
    const { orders } = fx.sources;
    await setGroupingRules(lead(), 'orders', { rules: { groupBy: [{ field: 'payload', path: '$.tenant' }] }, reason: 'by tenant' });
    const recorded = await record(orders, [poison({ tenant: 'acme\u0000evil' }), poison({ tenant: 'acme' })]);
    expect(recorded).toHaveLength(2);
  });

  it('records a deeply nested payload when a split or a rule walks every descendant', async () => {
    const { orders } = fx.sources;
    const recorded = await record(orders, [poison({ tenant: 'a', n: 1 }), poison({ tenant: 'b', n: 2 })]);
    const id = await clusterOf(recorded[0]!.id);
    await splitCluster(lead(), id, { by: { field: 'payload', path: '$..tenant' }, reason: 'by tenant anywhere' });
    await setGroupingRules(lead(), 'orders', { rules: { groupBy: [{ field: 'payload', path: '$..*..*..tenant' }] }, reason: 'deep' });
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    const nested = `{"tenant":"a","x":${'['.repeat(400)}${']'.repeat(400)}}`;
    const more = await record(orders, [poison(deep), poison(nested)]);
    expect(more).toHaveLength(2);
  });
});
