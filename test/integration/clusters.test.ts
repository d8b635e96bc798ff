// Clusters in the product: the inbox list under team scope, the cluster page, the second stage at
// ingest, archiving a whole cluster and a lead's merge, on the real database.
import { describe, expect, it } from 'vitest';
import { manualClock, HOUR, MINUTE } from '@/lib/clock';
import { db, pg } from '@/lib/db';
import type { NewDeadLetter } from '@/lib/intake/record-dead-letters';
import { listDeadLetters } from '@/lib/deadletters/list-dead-letters';
import { archiveCluster } from '@/lib/clustering/archive-cluster';
import { lockClustersFollowingMerges } from '@/lib/clustering/follow-merges';
import { getCluster } from '@/lib/clustering/get-cluster';
import { listClusters } from '@/lib/clustering/list-clusters';
import { mergeClusters } from '@/lib/clustering/merge-clusters';
import { clusterFixtures, clusterOf, record, refusal } from './cluster-support';

const NOW = new Date('2026-11-20T10:30:00Z');
const clock = manualClock(NOW);
const { fx, as } = clusterFixtures();
let seq = 0;

const support = () => as('support@triage.local');
const lead = () => as('lead@triage.local');

function poison(message: string, opts: Partial<NewDeadLetter> = {}): NewDeadLetter {
  return {
    messageId: `m-${++seq}`,
    payload: new TextEncoder().encode(`{"n":${seq}}`),
    reason: 'Rejected',
    errorType: 'OrderSchemaError',
    errorMessage: message,
    errorStack: `OrderSchemaError: ${message}\n    at handleOrder (/app/lib/demo/handlers.ts:48:11)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`,
    deadAt: new Date(NOW.getTime() - 10 * MINUTE),
    ...opts,
  };
}

describe('clusters', () => {
  describe('the inbox list', () => {
    it('shows open clusters of my team, newest wave first, with counts, rate and a 24-hour sparkline', async () => {
      const { orders, notifications, payments } = fx.sources;
      await record(
        orders,
        [1, 2, 3].map((n) => poison(`unknown field "gift" in order ${n}`, { deadAt: new Date(NOW.getTime() - 3 * HOUR) })),
      );
      await record(orders, [poison('unknown field "gift" in order 4', { deadAt: new Date(NOW.getTime() - 5 * MINUTE) })]);
      await record(notifications, [poison('member 9004 not found for loan 4', { errorType: 'MemberNotFound', deadAt: new Date(NOW.getTime() - HOUR) })]);
      await record(payments, [poison('payment gateway answered 503', { errorType: 'PaymentGatewayError', deadAt: NOW })]);

      const page = await listClusters(support(), {}, null, { clock });
      expect(page.clusters.map((c) => [c.errorType, c.count, c.openCount])).toEqual([
        ['OrderSchemaError', 4, 4],
        ['MemberNotFound', 1, 1],
      ]);
      const gift = page.clusters[0]!;
      expect(gift.template).toBe('unknown field "<*>" in order <*>');
      expect(gift.topFrame).toBe('handleOrder (lib/demo/handlers.ts)');
      expect(gift.sources.map((s) => s.name)).toEqual(['orders']);
      expect(gift.sparkline).toHaveLength(24);
      expect(gift.sparkline.slice(-4)).toEqual([3, 0, 0, 1]);
      expect(gift.ratePerHour).toBe(1);
      expect(gift.lastSeen).toBe(new Date(NOW.getTime() - 5 * MINUTE).toISOString());

      // The auditor sees every team; finance's support sees only payments.
      expect((await listClusters(as('auditor@triage.local'), {}, null, { clock })).clusters.map((c) => c.errorType)).toEqual([
        'PaymentGatewayError',
        'OrderSchemaError',
        'MemberNotFound',
      ]);
      expect((await listClusters(as('finance-support@triage.local'), {}, null, { clock })).clusters.map((c) => c.errorType)).toEqual(['PaymentGatewayError']);
    });

    it('counts only my sources of a cluster that spans teams', async () => {
      const msg = 'upstream answered 502 Bad Gateway';
      await record(fx.sources.orders, [poison(msg, { errorType: 'UpstreamError' })]);
      await record(fx.sources.payments, [poison(msg, { errorType: 'UpstreamError' }), poison(msg, { errorType: 'UpstreamError' })]);
      const [mine] = (await listClusters(support(), {}, null, { clock })).clusters;
      expect([mine!.count, mine!.sources.map((s) => s.name)]).toEqual([1, ['orders']]);
      const [all] = (await listClusters(as('admin@triage.local'), {}, null, { clock })).clusters;
      expect([all!.count, all!.sources.map((s) => s.name).sort()]).toEqual([3, ['orders', 'payments']]);
      expect((await getCluster(support(), mine!.id, { clock })).count).toBe(1);
    });

    it('pages with a cursor, filters, and leaves closed clusters out unless asked', async () => {
      const types = ['AError', 'BError', 'CError', 'DError', 'EError'];
      for (const [i, t] of types.entries()) {
        await record(fx.sources.orders, [poison(`broken ${t}`, { errorType: t, deadAt: new Date(NOW.getTime() - (i + 1) * MINUTE) })]);
      }
      const first = await listClusters(support(), {}, null, { clock, limit: 2 });
      const second = await listClusters(support(), {}, first.nextCursor, { clock, limit: 2 });
      const third = await listClusters(support(), {}, second.nextCursor, { clock, limit: 2 });
      expect([...first.clusters, ...second.clusters, ...third.clusters].map((c) => c.errorType)).toEqual(types);
      expect(third.nextCursor).toBeNull();

      expect((await listClusters(support(), { errorType: 'CError' }, null, { clock })).clusters.map((c) => c.errorType)).toEqual(['CError']);
      expect((await listClusters(support(), { q: 'broken DE' }, null, { clock })).clusters.map((c) => c.errorType)).toEqual(['DError']);
      expect((await listClusters(support(), { source: 'notifications' }, null, { clock })).clusters).toEqual([]);

      const [a] = (await listClusters(support(), { errorType: 'AError' }, null, { clock })).clusters;
      await archiveCluster(support(), a!.id, { reason: 'fixed upstream' });
      expect((await listClusters(support(), {}, null, { clock })).clusters.map((c) => c.errorType)).not.toContain('AError');
      const all = await listClusters(support(), { state: 'all' }, null, { clock });
      expect(all.clusters.find((c) => c.errorType === 'AError')).toMatchObject({ count: 1, openCount: 0 });
    });
  });

  describe('the second stage at ingest', () => {
    it('folds a new fingerprint into the cluster whose template differs only where values vary', async () => {
      const users = ['alice', 'bob', 'carol', 'dave', 'erin'];
      const ids: string[] = [];
      for (const [i, u] of users.entries()) {
        const deadAt = new Date(NOW.getTime() - (10 - i) * MINUTE);
        const [r] = await record(fx.sources.orders, [poison(`user ${u} is not allowed to place orders`, { errorType: 'Forbidden', deadAt })]);
        ids.push(r!.id);
      }
      // A word is not a mask: the first three stay apart until a fourth distinct value proves the column variable.
      const clusterIds = new Set(await Promise.all(ids.map(clusterOf)));
      expect(clusterIds.size).toBe(1);
      const [cluster] = (await listClusters(support(), { errorType: 'Forbidden' }, null, { clock })).clusters;
      expect(cluster).toMatchObject({ count: 5, openCount: 5, template: 'user <*> is not allowed to place orders' });
      const detail = await getCluster(support(), cluster!.id, { clock });
      expect(detail.merged.map((m) => m.template).sort()).toEqual([
        'user bob is not allowed to place orders',
        'user carol is not allowed to place orders',
        'user dave is not allowed to place orders',
        'user erin is not allowed to place orders',
      ]);
      expect(detail.sources).toMatchObject([{ name: 'orders', count: 5, openCount: 5 }]);
      expect(detail.sparkline.reduce((a, b) => a + b, 0)).toBe(5);

      // An alias id still finds the cluster, and later arrivals of any of those fingerprints count into it.
      const alias = detail.merged[0]!.id;
      expect((await getCluster(support(), alias, { clock })).aliasOf).toBe(alias);
      const [late] = await record(fx.sources.orders, [poison('user bob is not allowed to place orders', { errorType: 'Forbidden' })]);
      expect(await clusterOf(late!.id)).toBe(cluster!.id);
      expect((await getCluster(support(), cluster!.id, { clock })).count).toBe(6);
    });

    it('keeps causes apart: a code is never a variable', async () => {
      await record(
        fx.sources.payments,
        ['429', '503', '502', '500'].map((code) => poison(`gateway answered status code ${code}`, { errorType: 'GatewayError' })),
      );
      const page = await listClusters(as('admin@triage.local'), { errorType: 'GatewayError' }, null, { clock });
      expect(page.clusters).toHaveLength(4);
    });

    it('re-points rows written under a cluster that was merged before they were counted', async () => {
      const [a] = await record(fx.sources.orders, [poison('disk quota exceeded', { errorType: 'QuotaError' })]);
      const [b] = await record(fx.sources.orders, [poison('inbox is full', { errorType: 'QuotaError' })]);
      const from = await clusterOf(b!.id);
      const into = await clusterOf(a!.id);
      await mergeClusters(lead(), from, { into, reason: 'same quota' });
      // As if a batch had resolved its cluster just before that merge committed.
      await pg().begin(async (tx) => {
        await tx`INSERT INTO dead_letters (source_id, message_id, reason, payload_size, payload_sha256, fingerprint, cluster_id, expires_at)
                 VALUES (${fx.sources.orders.id}, 'late', 'Rejected', 0, ${'0'.repeat(64)}, 'x', ${from}, now())`;
        const rows = [{ cluster_id: from as string | null, source_id: fx.sources.orders.id, message_id: 'late', generation: 0 }];
        await lockClustersFollowingMerges(tx, rows);
        expect(rows[0]!.cluster_id).toBe(into);
      });
      const late = await db().deadLetter.findFirstOrThrow({ where: { messageId: 'late' } });
      expect(late.clusterId).toBe(into);
    });
  });

  describe('the cluster page', () => {
    it('shows template, sources, distinct samples and the trend; another team gets 404', async () => {
      await record(
        fx.sources.orders,
        [1, 1, 2, 3].map((n) => poison(`unknown field "gift" in order ${n}`)),
      );
      const [c] = (await listClusters(support(), {}, null, { clock })).clusters;
      const detail = await getCluster(support(), c!.id, { clock });
      expect(detail).toMatchObject({ template: 'unknown field "<*>" in order <*>', errorType: 'OrderSchemaError', count: 4, openCount: 4 });
      expect(detail.samples.map((s) => s.errorMessage).sort()).toEqual([1, 2, 3].map((n) => `unknown field "gift" in order ${n}`));
      expect(detail.trend.counts).toHaveLength(7 * 24);
      expect(detail.trend.counts.at(-1)).toBe(4);
      // All members with the list's filters: the dead-letter list narrowed to the cluster.
      const members = await listDeadLetters(support(), { clusterId: c!.id, status: ['open'] });
      expect(members.deadLetters).toHaveLength(4);

      expect(await refusal(getCluster(as('finance-support@triage.local'), c!.id))).toBe('not_found');
      expect(await refusal(getCluster(support(), '00000000-0000-0000-0000-000000000000'))).toBe('not_found');
      expect(await refusal(getCluster(support(), 'not-a-uuid'))).toBe('not_found');
    });
  });

  describe('archiving a whole cluster', () => {
    it('archives every open member I may archive, with one audit event naming the selection and the count', async () => {
      const msg = (n: number) => `unknown field "gift" in order ${n}`;
      await record(
        fx.sources.orders,
        [1, 2, 3].map((n) => poison(msg(n))),
      );
      await record(fx.sources.payments, [poison(msg(9))]);
      const [c] = (await listClusters(support(), {}, null, { clock })).clusters;

      expect(await refusal(archiveCluster(support(), c!.id, { reason: ' ' }))).toBe('unprocessable');
      expect(await refusal(archiveCluster(as('auditor@triage.local'), c!.id, { reason: 'x' }))).toBe('forbidden');
      const result = await archiveCluster(support(), c!.id, { reason: 'invalid for good' });
      expect(result).toEqual({ clusterId: c!.id, count: 3 });

      const byStatus = await db().deadLetter.groupBy({ by: ['sourceId', 'status'], _count: true });
      expect(byStatus.map((g) => [g.sourceId === fx.sources.orders.id ? 'orders' : 'payments', g.status, g._count]).sort()).toEqual([
        ['orders', 'archived', 3],
        ['payments', 'open', 1],
      ]);
      const events = await db().auditEvent.findMany({ where: { action: 'cluster.archive' } });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        actorEmail: 'support@triage.local',
        targetId: c!.id,
        selection: { cluster: c!.id },
        count: 3,
        reason: 'invalid for good',
        sourceId: fx.sources.orders.id,
        teamId: fx.teams.commerce,
      });
      const cluster = await db().cluster.findUniqueOrThrow({ where: { id: c!.id } });
      expect([cluster.count, cluster.openCount]).toEqual([4, 1]);
      expect(await refusal(archiveCluster(support(), c!.id, { reason: 'again' }))).toBe('unprocessable');
      // Finance's support archives finance's share of the same cluster, and only that, source by source if asked.
      expect(await refusal(archiveCluster(as('finance-support@triage.local'), c!.id, { reason: 'x', source: 'orders' }))).toBe('not_found');
      expect(await archiveCluster(as('finance-support@triage.local'), c!.id, { reason: 'also invalid', source: 'payments' })).toEqual({
        clusterId: c!.id,
        count: 1,
      });
      const [financeEvent] = await db().auditEvent.findMany({ where: { action: 'cluster.archive', actorEmail: 'finance-support@triage.local' } });
      expect(financeEvent).toMatchObject({ selection: { cluster: c!.id, source: 'payments' }, count: 1, teamId: fx.teams.finance });
    });
  });

  describe("a lead's merge", () => {
    it('moves members and counts, is audited, and sticks for new arrivals', async () => {
      const [a] = await record(fx.sources.orders, [
        poison('connection reset by peer', { errorType: 'NetError' }),
        poison('connection reset by peer', { errorType: 'NetError' }),
      ]);
      const [b] = await record(fx.sources.notifications, [poison('socket hang up', { errorType: 'NetError' })]);
      await archiveCluster(support(), await clusterOf(b!.id), { reason: 'seen' });
      await record(fx.sources.notifications, [poison('socket hang up', { errorType: 'NetError' })]);
      const into = await clusterOf(a!.id);
      const from = await clusterOf(b!.id);

      expect(await refusal(mergeClusters(support(), from, { into, reason: 'same' }))).toBe('forbidden');
      expect(await refusal(mergeClusters(as('finance-lead@triage.local'), from, { into, reason: 'same' }))).toBe('not_found');
      expect(await refusal(mergeClusters(lead(), from, { into: from, reason: 'same' }))).toBe('conflict');

      const merged = await mergeClusters(lead(), from, { into, reason: 'a peer closing the socket, twice' });
      expect(merged).toEqual({ clusterId: from, into, count: 2 });
      expect(await clusterOf(b!.id)).toBe(into);
      const detail = await getCluster(lead(), into, { clock });
      expect([detail.count, detail.openCount]).toEqual([4, 3]);
      expect(detail.sources.map((s) => [s.name, s.count, s.openCount]).sort()).toEqual([
        ['notifications', 2, 1],
        ['orders', 2, 2],
      ]);
      expect(detail.merged.map((m) => m.id)).toEqual([from]);
      const alias = await db().cluster.findUniqueOrThrow({ where: { id: from } });
      expect([alias.mergedIntoId, alias.count, alias.openCount]).toEqual([into, 0, 0]);
      expect(await db().clusterSource.count({ where: { clusterId: from } })).toBe(0);

      const [event] = await db().auditEvent.findMany({ where: { action: 'cluster.merge' } });
      expect(event).toMatchObject({ actorEmail: 'lead@triage.local', targetId: from, selection: { cluster: from, into }, count: 2, teamId: fx.teams.commerce });

      const [late] = await record(fx.sources.notifications, [poison('socket hang up', { errorType: 'NetError' })]);
      expect(await clusterOf(late!.id)).toBe(into);
      expect((await getCluster(lead(), into, { clock })).count).toBe(5);
      expect(await refusal(mergeClusters(lead(), from, { into, reason: 'again' }))).toBe('conflict');
    });

    it('refuses a team lead a cluster that also holds another team’s dead letters', async () => {
      const [a] = await record(fx.sources.orders, [poison('timeout after 30s', { errorType: 'TimeoutError' })]);
      await record(fx.sources.payments, [poison('timeout after 30s', { errorType: 'TimeoutError' })]);
      const [b] = await record(fx.sources.orders, [poison('deadline exceeded', { errorType: 'TimeoutError' })]);
      expect(await refusal(mergeClusters(lead(), await clusterOf(b!.id), { into: await clusterOf(a!.id), reason: 'same' }))).toBe('forbidden');
      const admin = await mergeClusters(as('admin@triage.local'), await clusterOf(b!.id), { into: await clusterOf(a!.id), reason: 'same' });
      expect(admin.count).toBe(1);
      expect(await db().auditEvent.count({ where: { action: 'cluster.merge' } })).toBe(1);
    });
  });
});
