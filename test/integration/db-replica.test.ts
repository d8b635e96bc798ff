// Reads on a streaming replica (DATABASE_REPLICA_URL, lib/db/replica.ts), on a real one: a private
// primary and its hot standby (pg_basebackup -R), both started here, since the machine's shared
// Postgres takes no replication connections and other runs use it. Replay is paused on the standby
// to tell the two apart: a row written since is on the primary only, so who sees it says where the
// read went.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type postgres from 'postgres';
import { closeDb, createPg, pg } from '@/lib/db';
import { readDb, replicaVerdict } from '@/lib/db/replica';
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import { closeRedis } from '@/lib/redis';
import { closeIngestSql } from '@/lib/ingest/ingest-sql';
import { recordDeadLetters, type NewDeadLetter, type RecordedDeadLetter } from '@/lib/intake/record-dead-letters';
import { listDeadLetters } from '@/lib/deadletters/list-dead-letters';
import { updateSourcePolicy } from '@/lib/sources/update-policy';
import { getSlaBoard } from '@/lib/sla/sla-board';
import { sourceCharts } from '@/lib/rollups/source-charts';
import { renderMetrics } from '@/lib/metrics/render-metrics';
import { GET as getList } from '@/app/api/v1/dead-letters/route';
import { GET as getExport } from '@/app/api/v1/dead-letters/export/route';
import { GET as getClusters } from '@/app/api/v1/clusters/route';
import { POST as postArchive } from '@/app/api/v1/dead-letters/[id]/archive/route';
import { startPrivatePostgres, startPrivateReplica, type PrivatePostgres } from '../support/private-postgres';
import { waitFor } from '../support/wait-for';
import { ctx, getRequest, jsonRequest, world, type World } from './deadletters-world';

const T0 = Date.parse('2026-11-20T12:00:00.000Z');
const dl = (i: number): NewDeadLetter => ({
  messageId: `m-${i}`,
  payload: new TextEncoder().encode(`{"order":${i}}`),
  contentType: 'application/json',
  reason: 'MaxReceives',
  errorType: 'Timeout',
  errorMessage: `upstream timed out after ${i}ms`,
  receiveCount: 3,
  deadAt: new Date(T0 + i * 1000),
});

let primary: PrivatePostgres | undefined;
let standby: Awaited<ReturnType<typeof startPrivateReplica>> | undefined;
const saved = { ...env() };

type Page = { deadLetters: { id: string; messageId: string; status: string }[] };

describe('reads on a streaming replica', () => {
  let w: World;
  let orders: RecordedDeadLetter[];
  // This test's own session on the standby, to pause and resume its replay.
  let standbySql: postgres.Sql;

  beforeAll(async () => {
    primary = await startPrivatePostgres('replica');
    standby = await startPrivateReplica(primary);
    process.env.DATABASE_URL = primary.url;
    process.env.DATABASE_REPLICA_URL = standby.url;
    await closeDb();
    await closeIngestSql();
    // A generous lag threshold: while replay is paused below, the standby is behind on purpose and
    // must still be used, until the threshold is lowered. Checks every 200 ms keep the test short.
    Object.assign(env(), {
      DATABASE_URL: primary.url,
      DATABASE_REPLICA_URL: standby.url,
      DATABASE_REPLICA_MAX_LAG_MS: 300_000,
      DATABASE_REPLICA_CHECK_MS: 200,
    });
    standbySql = createPg(standby.url, 1);
    w = await world();
    orders = await recordDeadLetters(
      w.sources.orders,
      Array.from({ length: 5 }, (_, i) => dl(i)),
    );
    // The standby has replayed the world before replay is paused.
    const lsn = (await pg()<{ lsn: string }[]>`SELECT pg_current_wal_flush_lsn()::text AS lsn`)[0]!.lsn;
    await waitFor(
      'the standby caught up',
      async () => (await standbySql<{ ok: boolean }[]>`SELECT pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn AS ok`)[0]!.ok,
      30_000,
      50,
    );
  }, 240_000);

  afterAll(async () => {
    await standbySql?.end({ timeout: 1 }).catch(() => {});
    await closeIngestSql();
    await closeDb();
    await closeRedis();
    Object.assign(env(), {
      DATABASE_URL: saved.DATABASE_URL,
      DATABASE_REPLICA_URL: undefined,
      DATABASE_REPLICA_MAX_LAG_MS: saved.DATABASE_REPLICA_MAX_LAG_MS,
      DATABASE_REPLICA_CHECK_MS: saved.DATABASE_REPLICA_CHECK_MS,
    });
    delete process.env.DATABASE_REPLICA_URL;
    standby?.destroy();
    primary?.destroy();
  });

  const list = async (who: 'support' | 'lead'): Promise<Page> => {
    const r = await getList(getRequest('/api/v1/dead-letters?source=orders', w.tokens.personal[who]), ctx({}));
    expect(r.status).toBe(200);
    return (await r.json()) as Page;
  };
  const messageIds = (p: Page) => p.deadLetters.map((d) => d.messageId).sort();
  const inRecovery = async (sql: Awaited<ReturnType<typeof readDb>>) => (await sql<{ r: boolean }[]>`SELECT pg_is_in_recovery() AS r`)[0]!.r;

  it('reads from the standby, writes to the primary, and shows a person their own decision at once', async () => {
    expect(await inRecovery(await readDb(w.actors.lead))).toBe(true);
    expect(await inRecovery(pg())).toBe(false);

    await standbySql`SELECT pg_wal_replay_pause()`;
    // Written on the primary by the system (no person's marker): the standby does not have it.
    const [late] = await recordDeadLetters(w.sources.orders, [dl(99)]);
    expect((await pg()`SELECT count(*)::int AS n FROM dead_letters WHERE id = ${late!.id}`)[0]!.n).toBe(1);
    expect(messageIds(await list('lead'))).toEqual(['m-0', 'm-1', 'm-2', 'm-3', 'm-4']);
    expect((await listDeadLetters(w.actors.lead, { source: ['orders'] })).deadLetters).toHaveLength(5);

    // support archives one (a write: the standby is read-only, so it can only have gone to the primary).
    const target = orders[0]!.id;
    const archived = await postArchive(
      jsonRequest(`/api/v1/dead-letters/${target}/archive`, w.tokens.personal.support, { reason: 'handled' }),
      ctx({ id: target }),
    );
    expect(archived.status).toBe(200);
    // Its author sees it at once (and the late row: the primary answers them) ...
    const mine = await list('support');
    expect(mine.deadLetters.find((d) => d.id === target)?.status).toBe('archived');
    expect(messageIds(mine)).toContain('m-99');
    // ... another person still reads the paused standby.
    const theirs = await list('lead');
    expect(theirs.deadLetters.find((d) => d.id === target)?.status).toBe('open');
    expect(messageIds(theirs)).not.toContain('m-99');

    // Once the standby has replayed the write, its author reads from the standby again.
    await standbySql`SELECT pg_wal_replay_resume()`;
    await waitFor('the author back on the standby', async () => inRecovery(await readDb(w.actors.support)), 30_000, 100);
    expect((await list('support')).deadLetters.find((d) => d.id === target)?.status).toBe('archived');
    expect(messageIds(await list('lead'))).toContain('m-99');
  });

  it("masks by the primary's source settings at once, while the standby has not replayed them", async () => {
    await standbySql`SELECT pg_wal_replay_pause()`;
    try {
      const preview = async () => (await listDeadLetters(w.actors.lead, { source: ['orders'] })).deadLetters.find((d) => d.messageId === 'm-1');
      expect((await preview())?.preview).toContain('"order":1');
      // An admin marks the field sensitive (after a leak, say): the rows on the standby are the same,
      // but who may see what is the primary's answer, not the lagging copy's.
      await updateSourcePolicy(w.actors.admin, 'orders', { sensitivePaths: ['$.order'] });
      expect(await inRecovery(await readDb(w.actors.lead))).toBe(true);
      const after = await preview();
      expect(after?.masked).toBe(true);
      expect(after?.preview).toBeNull();
    } finally {
      await updateSourcePolicy(w.actors.admin, 'orders', { sensitivePaths: [] });
      await standbySql`SELECT pg_wal_replay_resume()`;
    }
  });

  it('sends reads to the primary, with a warning and a metric, while the standby is behind', async () => {
    const warn = vi.spyOn(log, 'warn');
    try {
      await standbySql`SELECT pg_wal_replay_pause()`;
      await recordDeadLetters(w.sources.orders, [dl(100)]);
      Object.assign(env(), { DATABASE_REPLICA_MAX_LAG_MS: 50 });
      await waitFor('the lag seen', async () => (await replicaVerdict()).refuse === 'lag', 30_000, 100);
      expect(await inRecovery(await readDb(w.actors.lead))).toBe(false);
      expect(messageIds(await list('lead'))).toContain('m-100');
      expect(warn.mock.calls.some(([, msg]) => typeof msg === 'string' && /replica is behind/.test(msg))).toBe(true);
      const metrics = (await renderMetrics(w.actors.admin)).body;
      expect(metrics).toMatch(/triage_db_replica_up 0/);
      expect(metrics).toMatch(/triage_db_primary_reads_total\{reason="lag"\} [1-9]/);
    } finally {
      warn.mockRestore();
      await standbySql`SELECT pg_wal_replay_resume()`.catch(() => {});
      Object.assign(env(), { DATABASE_REPLICA_MAX_LAG_MS: 300_000 });
    }
    await waitFor('back on the standby', async () => inRecovery(await readDb(w.actors.lead)), 30_000, 100);
  });

  it('sends reads to the primary when the standby stops, and the pages still answer', async () => {
    const warn = vi.spyOn(log, 'warn');
    try {
      await standbySql.end({ timeout: 1 });
      standby!.stop();
      // No wait for a check to expire: the closed connections void the last one.
      expect(messageIds(await list('lead'))).toContain('m-100');
      expect(await inRecovery(await readDb(w.actors.lead))).toBe(false);
      expect((await replicaVerdict()).refuse).toBe('down');
      const clusters = await getClusters(getRequest('/api/v1/clusters', w.tokens.personal.lead), ctx({}));
      expect(clusters.status).toBe(200);
      const csv = await getExport(getRequest('/api/v1/dead-letters/export?format=csv&source=orders', w.tokens.personal.lead), ctx({}));
      expect(csv.status).toBe(200);
      expect((await csv.text()).split('\n').filter(Boolean)).toHaveLength(1 + 7);
      expect((await getSlaBoard(w.actors.lead)).map((r) => r.source.name)).toEqual(['orders']);
      expect((await sourceCharts(w.actors.lead, 'orders')).source.name).toBe('orders');
      expect(warn.mock.calls.some(([, msg]) => typeof msg === 'string' && /not answering/.test(msg))).toBe(true);
      const metrics = (await renderMetrics(w.actors.admin)).body;
      expect(metrics).toMatch(/triage_db_primary_reads_total\{reason="down"\} [1-9]/);
      expect(metrics).toMatch(/triage_db_replica_lag_seconds NaN/i);
    } finally {
      warn.mockRestore();
    }
    standby!.start();
    await waitFor('back on the standby after its restart', async () => inRecovery(await readDb(w.actors.lead)), 60_000, 200);
  });
});
