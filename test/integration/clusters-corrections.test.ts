// People correct the clustering, on the real database: split a cluster by a payload
// field, undo a merge, grouping rules per source (new arrivals and a re-application in bulk), merge
// suggestions, each audited and refused to the auditor and outside the lead's team.
import { describe, expect, it } from 'vitest';
import { MINUTE } from '@/lib/clock';
import { db } from '@/lib/db';
import type { NewDeadLetter } from '@/lib/intake/record-dead-letters';
import { getCluster } from '@/lib/clustering/get-cluster';
import { mergeClusters } from '@/lib/clustering/merge-clusters';
import { mergeSuggestions } from '@/lib/clustering/merge-suggestions';
import { advanceRegroupRuns, latestRegroup, startRegroup } from '@/lib/clustering/regroup';
import { setGroupingRules } from '@/lib/clustering/set-grouping-rules';
import { previewSplit, splitCluster } from '@/lib/clustering/split-cluster';
import { undoMerge } from '@/lib/clustering/undo-merge';
import { clusterFixtures, clusterOf, clustersOf, groupBySensitive, record, ruleRefusal } from './cluster-support';

const NOW = new Date('2026-11-20T10:30:00Z');
const { fx, as } = clusterFixtures();
let seq = 0;

const lead = () => as('lead@triage.local');
const auditor = () => as('auditor@triage.local');
const financeLead = () => as('finance-lead@triage.local');

function poison(message: string, opts: Partial<NewDeadLetter> & { payloadJson?: unknown; frame?: string } = {}): NewDeadLetter {
  const { payloadJson, frame = 'handleOrder', ...rest } = opts;
  return {
    messageId: `m-${++seq}`,
    payload: new TextEncoder().encode(JSON.stringify(payloadJson ?? { n: seq })),
    reason: 'Rejected',
    errorType: 'OrderSchemaError',
    errorMessage: message,
    errorStack: `OrderSchemaError: ${message}\n    at ${frame} (/app/lib/orders/${frame}.ts:48:11)`,
    deadAt: new Date(NOW.getTime() - 10 * MINUTE),
    ...rest,
  };
}

async function counts(id: string) {
  const c = await db().cluster.findUniqueOrThrow({ where: { id }, include: { sources: true } });
  return { count: c.count, open: c.openCount, perSource: c.sources.map((s) => s.count).reduce((a, b) => a + b, 0) };
}

/** The cluster counts `n` dead letters, all open, in its own count and in its sources'. */
async function expectAllOpen(id: string, n: number): Promise<void> {
  expect(await counts(id), id).toEqual({ count: n, open: n, perSource: n });
}

describe('correcting the clustering', () => {
  it('splits a cluster by a payload field: the largest part keeps the id, the others link back, counts follow, audited', async () => {
    const { orders } = fx.sources;
    const recorded = await record(orders, [
      ...[1, 2, 3].map((i) => poison(`unknown field "gift" in order ${i}`, { payloadJson: { type: 'order.created', i } })),
      ...[4, 5].map((i) => poison(`unknown field "gift" in order ${i}`, { payloadJson: { type: 'order.updated', i } })),
    ]);
    const id = await clusterOf(recorded[0]!.id);
    const history = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(recorded[3]!.id) } });

    const preview = await previewSplit(lead(), id, { by: { field: 'payload', path: '$.type' } });
    expect(preview.parts.map((p) => [p.value, p.count, p.openCount, p.keepsId])).toEqual([
      ['order.created', 3, 3, true],
      ['order.updated', 2, 2, false],
    ]);
    await expectAllOpen(id, 5);

    const split = await splitCluster(lead(), id, { by: { field: 'payload', path: '$.type' }, reason: 'two message types, two causes' });
    const [kept, other] = split.parts;
    expect(kept!.clusterId).toBe(id);
    expect(other!.clusterId).not.toBe(id);
    await expectAllOpen(id, 3);
    await expectAllOpen(other!.clusterId!, 2);
    const part = await db().cluster.findUniqueOrThrow({ where: { id: other!.clusterId! } });
    expect([part.splitFromId, part.groupedBy, part.template]).toEqual([id, '$.type=order.updated', 'unknown field "<*>" in order <*>']);
    // The part says what its members' errors say (poison), not unknown for want of a new arrival.
    expect(part.errorClass).toBe('permanent');
    expect((await getCluster(lead(), other!.clusterId!)).count).toBe(2);

    // The moved dead letter keeps everything but its cluster.
    const after = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(recorded[3]!.id) } });
    expect(after.clusterId).toBe(other!.clusterId);
    expect({ ...after, clusterId: null }).toEqual({ ...history, clusterId: null });

    const [event] = await db().auditEvent.findMany({ where: { action: 'cluster.split' } });
    expect(event).toMatchObject({ actorEmail: 'lead@triage.local', targetId: id, count: 2, reason: 'two message types, two causes' });
    expect(event!.before).toMatchObject({ cluster: { id, count: 5, openCount: 5 } });
    expect(event!.after).toMatchObject({
      parts: [
        { id, value: 'order.created', keepsId: true, count: 3, openCount: 3 },
        { id: other!.clusterId, value: 'order.updated', keepsId: false, count: 2, openCount: 2 },
      ],
    });

    // The split stays split for new arrivals of that fingerprint: each lands in the part of its
    // value, and a value never seen before stays in the cluster that kept the id.
    const later = await record(orders, [
      poison('unknown field "gift" in order 9', { payloadJson: { type: 'order.updated' } }),
      poison('unknown field "gift" in order 10', { payloadJson: { type: 'order.created' } }),
      poison('unknown field "gift" in order 11', { payloadJson: { type: 'order.deleted' } }),
    ]);
    expect(await clustersOf(later)).toEqual([other!.clusterId, id, id]);
    await expectAllOpen(other!.clusterId!, 3);
    await expectAllOpen(id, 5);
  });

  it('a split by a header stays split for new arrivals, and so does a split of a part', async () => {
    const { orders } = fx.sources;
    const arrival = (i: number, type: string, tenant: string) =>
      poison(`unknown field "gift" in order ${i}`, { payloadJson: { type, i }, headers: { 'X-Tenant': tenant } });
    const recorded = await record(orders, [
      arrival(1, 'order.created', 'acme'),
      arrival(2, 'order.created', 'acme'),
      arrival(3, 'order.created', 'globex'),
      arrival(4, 'order.updated', 'acme'),
      arrival(5, 'order.updated', 'acme'),
      arrival(6, 'order.updated', 'globex'),
    ]);
    const id = await clusterOf(recorded[0]!.id);
    // Tie at three: the value first in order keeps the id.
    const byType = await splitCluster(lead(), id, { by: { field: 'payload', path: '$.type' }, reason: 'two message types' });
    const updated = byType.parts.find((p) => p.value === 'order.updated')!.clusterId!;
    expect(byType.parts.find((p) => p.value === 'order.created')!.clusterId).toBe(id);
    const byTenant = await splitCluster(lead(), updated, { by: { field: 'header', name: 'x-tenant' }, reason: 'one tenant sends another shape' });
    const globex = byTenant.parts.find((p) => p.value === 'globex')!.clusterId!;
    expect(byTenant.parts.find((p) => p.value === 'acme')!.clusterId).toBe(updated);
    await expectAllOpen(globex, 1);

    const later = await record(orders, [
      arrival(7, 'order.updated', 'globex'),
      arrival(8, 'order.updated', 'acme'),
      arrival(9, 'order.created', 'globex'),
      arrival(10, 'order.updated', 'initech'),
    ]);
    expect(await clustersOf(later)).toEqual([globex, updated, id, updated]);
    await expectAllOpen(globex, 2);
    await expectAllOpen(updated, 4);
    await expectAllOpen(id, 4);
  });

  it('a split by error type of a merged cluster stays split for new arrivals of either type', async () => {
    const { orders } = fx.sources;
    const [quota] = await record(
      orders,
      [0, 1, 2].map(() => poison('limit reached for tenant', { errorType: 'QuotaError' })),
    );
    const [rate] = await record(
      orders,
      [0, 1].map(() => poison('limit reached for tenant', { errorType: 'RateError' })),
    );
    const into = await clusterOf(quota!.id);
    await mergeClusters(lead(), await clusterOf(rate!.id), { into, reason: 'one limit' });
    const split = await splitCluster(lead(), into, { by: { field: 'errorType' }, reason: 'two limits after all' });
    const part = split.parts.find((p) => p.value === 'RateError')!.clusterId!;
    expect(split.parts.find((p) => p.value === 'QuotaError')!.clusterId).toBe(into);

    const later = await record(orders, [
      poison('limit reached for tenant', { errorType: 'RateError' }),
      poison('limit reached for tenant', { errorType: 'QuotaError' }),
    ]);
    expect(await clustersOf(later)).toEqual([part, into]);
    await expectAllOpen(part, 3);
    await expectAllOpen(into, 4);
  });

  it('refuses a split with one part, to the auditor, and outside the lead team (404)', async () => {
    const [one] = await record(fx.sources.orders, [poison('unknown field "gift" in order 1'), poison('unknown field "gift" in order 2')]);
    const id = await clusterOf(one!.id);
    expect(await ruleRefusal(splitCluster(lead(), id, { by: { field: 'errorType' }, reason: 'x' }))).toBe('unprocessable');
    expect(await ruleRefusal(splitCluster(auditor(), id, { by: { field: 'errorType' }, reason: 'x' }))).toBe('forbidden');
    expect(await ruleRefusal(previewSplit(auditor(), id, { by: { field: 'errorType' } }))).toBe('forbidden');
    expect(await ruleRefusal(splitCluster(financeLead(), id, { by: { field: 'errorType' }, reason: 'x' }))).toBe('not_found');
    expect(await ruleRefusal(previewSplit(financeLead(), id, { by: { field: 'errorType' } }))).toBe('not_found');
    expect(await db().auditEvent.count({ where: { action: 'cluster.split' } })).toBe(0);
  });

  it('undoing a merge restores both clusters and their counts, those that arrived since included', async () => {
    const { orders } = fx.sources;
    const [a] = await record(orders, [
      poison('quota exceeded for tenant', { errorType: 'QuotaError' }),
      poison('quota exceeded for tenant', { errorType: 'QuotaError' }),
    ]);
    const [b] = await record(orders, [
      poison('rate limit reached', { errorType: 'RateError' }),
      poison('rate limit reached', { errorType: 'RateError' }),
      poison('rate limit reached', { errorType: 'RateError' }),
    ]);
    const into = await clusterOf(a!.id);
    const from = await clusterOf(b!.id);
    await mergeClusters(lead(), from, { into, reason: 'same outage' });
    await expectAllOpen(into, 5);
    const [later] = await record(orders, [poison('rate limit reached', { errorType: 'RateError' })]);
    expect(await clusterOf(later!.id)).toBe(into);
    await expectAllOpen(into, 6);

    expect(await ruleRefusal(undoMerge(auditor(), from, { reason: 'x' }))).toBe('forbidden');
    expect(await ruleRefusal(undoMerge(financeLead(), from, { reason: 'x' }))).toBe('not_found');
    expect(await ruleRefusal(undoMerge(lead(), into, { reason: 'x' }))).toBe('not_found');

    const undone = await undoMerge(lead(), from, { reason: 'not the same cause after all' });
    expect(undone).toEqual({ clusterId: from, from: into, count: 4 });
    await expectAllOpen(into, 2);
    await expectAllOpen(from, 4);
    expect((await db().cluster.findUniqueOrThrow({ where: { id: from } })).mergedIntoId).toBeNull();
    expect(await clusterOf(later!.id)).toBe(from);
    // New arrivals follow their own cluster again.
    const [next] = await record(orders, [poison('rate limit reached', { errorType: 'RateError' })]);
    expect(await clusterOf(next!.id)).toBe(from);

    const [event] = await db().auditEvent.findMany({ where: { action: 'cluster.unmerge' } });
    expect(event).toMatchObject({ targetId: from, count: 4, reason: 'not the same cause after all' });
    expect(event!.before).toMatchObject({ cluster: { id: from, count: 0 }, from: { id: into, count: 6 } });
    expect(event!.after).toMatchObject({ cluster: { id: from, count: 4, openCount: 4 }, from: { id: into, count: 2, openCount: 2 } });
    // Undone once: a second undo has nothing to undo.
    expect(await ruleRefusal(undoMerge(lead(), from, { reason: 'again' }))).toBe('not_found');
  });

  it('learns from a merge: the next wave of the merged kind lands in the merged cluster; an undone merge stays undone', async () => {
    const { orders } = fx.sources;
    // No frame: on its own the second stage wants four values before a word position is variable.
    const payout = (bank: string) => poison(`payout refused by bank ${bank} for the account`, { errorType: 'PayoutError', errorStack: null });
    const [a] = await record(orders, [payout('alpha'), payout('alpha')]);
    const [b] = await record(orders, [payout('bravo')]);
    const into = await clusterOf(a!.id);
    const from = await clusterOf(b!.id);
    expect(from).not.toBe(into);
    await mergeClusters(lead(), from, { into, reason: 'one bank outage' });
    const [wave] = await record(orders, [payout('charlie'), payout('charlie')]);
    expect(await clusterOf(wave!.id)).toBe(into);
    await expectAllOpen(into, 5);

    const region = (name: string) => poison(`export rejected in region ${name} for the batch`, { errorType: 'ExportError', errorStack: null });
    const [n] = await record(orders, [region('north')]);
    const [s] = await record(orders, [region('south')]);
    const north = await clusterOf(n!.id);
    const south = await clusterOf(s!.id);
    await mergeClusters(lead(), south, { into: north, reason: 'same export' });
    await undoMerge(lead(), south, { reason: 'two exports after all' });
    // Two more values would prove the position variable: the person's undo still wins.
    const [e] = await record(orders, [region('east')]);
    const [w] = await record(orders, [region('west')]);
    expect(await clusterOf(n!.id)).toBe(north);
    expect(await clusterOf(s!.id)).toBe(south);
    expect((await db().cluster.findUniqueOrThrow({ where: { id: south } })).mergedIntoId).toBeNull();
    expect((await db().cluster.findUniqueOrThrow({ where: { id: north } })).mergedIntoId).toBeNull();
    expect(await clusterOf(e!.id)).not.toBe(await clusterOf(w!.id));
  });

  it('offers a merge for two clusters that differ only in a position proven variable elsewhere', async () => {
    const { orders } = fx.sources;
    // Elsewhere (another frame), enough distinct users prove the position variable: one merged pattern.
    await record(
      orders,
      ['carol', 'dave', 'erin', 'frank', 'grace'].map((u) => poison(`user ${u} not found in directory`, { errorType: 'UserLookupError', frame: 'syncUsers' })),
    );
    // Here, two users only: the second stage cannot prove it within this shape.
    const [alice] = await record(orders, [poison('user alice not found in directory', { errorType: 'UserLookupError', frame: 'lookupUser' })]);
    const [bob] = await record(orders, [poison('user bob not found in directory', { errorType: 'UserLookupError', frame: 'lookupUser' })]);
    const [other] = await record(orders, [poison('user alice deleted from directory', { errorType: 'UserLookupError', frame: 'lookupUser' })]);
    const a = await clusterOf(alice!.id);
    const b = await clusterOf(bob!.id);
    expect(a).not.toBe(b);

    const suggestions = await mergeSuggestions(lead(), a);
    expect(suggestions.map((s) => [s.id, s.positions, s.evidence])).toEqual([[b, [1], 'user <*> not found in directory']]);
    expect(suggestions.map((s) => s.id)).not.toContain(await clusterOf(other!.id));
    expect(await ruleRefusal(mergeSuggestions(auditor(), a))).toBe('forbidden');
    expect(await ruleRefusal(mergeSuggestions(financeLead(), a))).toBe('not_found');

    // One click: the suggestion is a merge.
    await mergeClusters(lead(), b, { into: a, reason: 'merge suggestion' });
    await expectAllOpen(a, 2);
    expect(await mergeSuggestions(lead(), a)).toEqual([]);
  });

  it("a merge suggestion's evidence comes from the lead's own team: another team's patterns are neither shown nor used", async () => {
    const { orders, payments } = fx.sources;
    // The proof exists only in finance's source.
    await record(
      payments,
      ['carol', 'dave', 'erin', 'frank', 'grace'].map((u) => poison(`account ${u} locked by policy`, { errorType: 'AccountLockError', frame: 'syncAccounts' })),
    );
    const [alice] = await record(orders, [poison('account alice locked by policy', { errorType: 'AccountLockError', frame: 'lockAccount' })]);
    await record(orders, [poison('account bob locked by policy', { errorType: 'AccountLockError', frame: 'lockAccount' })]);
    const a = await clusterOf(alice!.id);
    expect(await mergeSuggestions(lead(), a)).toEqual([]);
  });

  it('a grouping rule on a sensitive path groups by its value but shows it masked in "grouped by"', async () => {
    const { orders } = fx.sources;
    await groupBySensitive(lead(), orders, '$.account.code', '$.account.code', 'by account');
    const rows = await record(orders, [
      poison('account rejected for order 1', { errorType: 'AccountError', payloadJson: { account: { code: 'ACCT-SECRET-1' } } }),
      poison('account rejected for order 2', { errorType: 'AccountError', payloadJson: { account: { code: 'ACCT-SECRET-2' } } }),
    ]);
    const [a, b] = [await clusterOf(rows[0]!.id), await clusterOf(rows[1]!.id)];
    expect(a).not.toBe(b);
    for (const id of [a, b]) expect((await db().cluster.findUniqueOrThrow({ where: { id } })).groupedBy).toBe('$.account.code=***');
  });

  it('a grouping rule on a source makes new dead letters land in the rule clusters; re-applied in bulk to the open ones', async () => {
    const { orders } = fx.sources;
    const before = await record(
      orders,
      Array.from({ length: 7 }, (_, i) =>
        poison(`payment declined for order ${i}`, { errorType: 'PaymentError', payloadJson: { type: i % 2 ? 'refund' : 'charge', i } }),
      ),
    );
    const old = await clusterOf(before[0]!.id);
    await expectAllOpen(old, 7);

    expect(await ruleRefusal(setGroupingRules(auditor(), 'orders', { rules: { groupBy: [{ field: 'payload', path: '$.type' }] }, reason: 'x' }))).toBe(
      'forbidden',
    );
    expect(await ruleRefusal(setGroupingRules(financeLead(), 'orders', { rules: { groupBy: [{ field: 'payload', path: '$.type' }] }, reason: 'x' }))).toBe(
      'not_found',
    );
    const rules = await setGroupingRules(lead(), 'orders', {
      rules: { groupBy: [{ field: 'payload', path: '$.type' }] },
      reason: 'charges and refunds fail apart',
    });
    expect(rules.version).toBe(1);
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: 'source.grouping' } });
    expect(event.after).toEqual({ version: 1, rules: { groupBy: [{ field: 'payload', path: '$.type' }], variablePositions: [] } });

    const fresh = await record(orders, [
      poison('payment declined for order 100', { errorType: 'PaymentError', payloadJson: { type: 'refund' } }),
      poison('payment declined for order 101', { errorType: 'PaymentError', payloadJson: { type: 'charge' } }),
      poison('payment declined for order 102', { errorType: 'PaymentError', payloadJson: { type: 'refund' } }),
    ]);
    const refund = await clusterOf(fresh[0]!.id);
    const charge = await clusterOf(fresh[1]!.id);
    expect(new Set([refund, charge, old]).size).toBe(3);
    expect(await clusterOf(fresh[2]!.id)).toBe(refund);
    expect((await db().cluster.findUniqueOrThrow({ where: { id: refund } })).groupedBy).toBe('$.type=refund');

    // Re-applied in bulk, in batches, with progress.
    expect(await ruleRefusal(startRegroup(auditor(), 'orders', { reason: 'x' }))).toBe('forbidden');
    const run = await startRegroup(lead(), 'orders', { reason: 'regroup the backlog' });
    expect([run.status, run.total, run.done]).toEqual(['running', 10, 0]);
    while ((await advanceRegroupRuns({ batches: 1 })) > 0);
    const done = await latestRegroup(lead(), 'orders');
    expect([done!.status, done!.done, done!.moved]).toEqual(['done', 10, 7]);
    await expectAllOpen(refund, 5);
    await expectAllOpen(charge, 5);
    await expectAllOpen(old, 0);
    expect(await clusterOf(before[1]!.id)).toBe(refund);
    expect(await db().auditEvent.count({ where: { action: 'source.regroup', count: 10 } })).toBe(1);
  });

  it('treats a token position as variable: templates that differ there are one cluster', async () => {
    const { orders } = fx.sources;
    await setGroupingRules(lead(), 'orders', { rules: { variablePositions: [2] }, reason: 'the third word is a region' });
    const r = await record(orders, [
      poison('bucket in europe is full', { errorType: 'StorageError' }),
      poison('bucket in asia is full', { errorType: 'StorageError' }),
    ]);
    const id = await clusterOf(r[0]!.id);
    expect(await clusterOf(r[1]!.id)).toBe(id);
    expect((await db().cluster.findUniqueOrThrow({ where: { id } })).template).toBe('bucket in <*> is full');
  });
});
