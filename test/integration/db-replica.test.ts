// Reads on a streaming replica (DATABASE_REPLICA_URL, lib/db/replica.ts), on a real one: a private
// primary and its hot standby (pg_basebackup -R), both started here, since the machine's shared
// Postgres takes no replication connections and other runs use it. Replay is paused on the standby
// to tell the two apart: a row written since is on the primary only, so who sees it says where the
// read went.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type postgres from 'postgres';
import { closeDb, createPg, pg } from '@/lib/db';
import { parseLsn, readDb, replicaVerdict } from '@/lib/db/replica';
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
import * as mcpRoute from '@/app/api/mcp/route';
import { createPersonalToken } from '@/lib/admin/tokens';
import { setAssistantRoles } from '@/lib/auth/assistant-access';
import { SYSTEM } from '@/lib/auth';
import { callTool, connectAssistant } from '../support/assistant';
import { serveRoutes } from '../support/serve-routes';
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
    await standbyCaughtUp();
  }, 240_000);

  /** Until the standby has replayed everything the primary has flushed so far. */
  async function standbyCaughtUp(): Promise<void> {
    const lsn = (await pg()<{ lsn: string }[]>`SELECT pg_current_wal_flush_lsn()::text AS lsn`)[0]!.lsn;
    await waitFor(
      'the standby caught up',
      async () => (await standbySql<{ ok: boolean }[]>`SELECT pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn AS ok`)[0]!.ok,
      30_000,
      50,
    );
  }

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
  // Replay resumed and the generous lag limit back, after a test that paused or lowered them.
  const resumeReplay = async () => {
    await standbySql`SELECT pg_wal_replay_resume()`.catch(() => {});
    Object.assign(env(), { DATABASE_REPLICA_MAX_LAG_MS: 300_000 });
  };

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

  it("an assistant's read-only tool call leaves its person on the standby; its decision sends them to the primary", async () => {
    await setAssistantRoles({ ...SYSTEM, label: 'test' }, { roles: ['lead'] });
    const token = (await createPersonalToken(SYSTEM, 'lead@example.com', 'assistant', { scopes: ['assistant'] })).token;
    const served = await serveRoutes({ '/api/mcp': mcpRoute });
    const client = await connectAssistant(served.url, token);
    try {
      await standbySql`SELECT pg_wal_replay_pause()`;
      // The primary's WAL moves on: a read-your-writes mark taken from now on is past the paused standby.
      await pg()`CHECKPOINT`;
      expect(await inRecovery(await readDb(w.actors.lead))).toBe(true);

      const read = await callTool(client, 'search_dead_letters', { source: 'orders' });
      expect(read.isError).toBeFalsy();
      expect(await inRecovery(await readDb(w.actors.lead))).toBe(true);

      const target = orders[1]!.id;
      const archived = await callTool(client, 'archive_dead_letter', { id: target, reason: 'handled by the assistant' });
      expect(archived.isError).toBeFalsy();
      // Its person sees the assistant's decision at once: their reads go to the primary.
      expect(await inRecovery(await readDb(w.actors.lead))).toBe(false);
      expect((await list('lead')).deadLetters.find((d) => d.id === target)?.status).toBe('archived');
    } finally {
      await standbySql`SELECT pg_wal_replay_resume()`.catch(() => {});
      await client.close();
      await served.close();
    }
    await waitFor('the person back on the standby', async () => inRecovery(await readDb(w.actors.lead)), 30_000, 100);
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
      await resumeReplay();
    }
    await waitFor('back on the standby', async () => inRecovery(await readDb(w.actors.lead)), 30_000, 100);
  });

  it('stays on the standby while the primary is idle past the lag limit: lag is how long it has been behind', async () => {
    Object.assign(env(), { DATABASE_REPLICA_MAX_LAG_MS: 3_000 });
    try {
      // Idle: the standby's last replayed commit is older than the limit (on the standby's own clock).
      await waitFor(
        'a primary idle past the limit',
        async () =>
          (
            await standbySql<{ idle: boolean }[]>`
              SELECT clock_timestamp() - pg_last_xact_replay_timestamp() > interval '3500 milliseconds' AS idle`
          )[0]!.idle,
        30_000,
        100,
      );
      await waitFor('the standby caught up', async () => (await replicaVerdict()).lagMs === 0, 30_000, 100);
      // WAL without a commit, as an idle primary writes it (a checkpoint, a standby snapshot), not yet
      // replayed: replay is paused to hold open the moment a check can land in.
      await standbySql`SELECT pg_wal_replay_pause()`;
      await pg()`CHECKPOINT`;
      const written = parseLsn((await pg()<{ lsn: string }[]>`SELECT pg_current_wal_flush_lsn()::text AS lsn`)[0]!.lsn)!;
      const since = Date.now();
      const behind = await waitFor(
        'a check that sees the standby behind',
        async () => {
          const v = await replicaVerdict();
          return v.at >= since && (v.refuse === 'down' || (v.replayed !== null && v.replayed < written)) ? v : undefined;
        },
        30_000,
        50,
      );
      expect(behind.refuse).toBeNull();
      expect(behind.lagMs).toBeLessThan(3_000);
      expect(await inRecovery(await readDb(w.actors.lead))).toBe(true);
      expect((await renderMetrics(w.actors.admin)).body).toMatch(/^triage_db_replica_lag_seconds [0-2](\.\d+)?$/m);
      // Still behind past the limit: that is lag, and reads go to the primary.
      await waitFor('the lag seen', async () => (await replicaVerdict()).refuse === 'lag', 30_000, 100);
      expect(await inRecovery(await readDb(w.actors.lead))).toBe(false);
    } finally {
      await resumeReplay();
    }
    await waitFor('back on the standby', async () => inRecovery(await readDb(w.actors.lead)), 30_000, 100);
  });

  // The standby's dead_letters held by a lock: taken on the primary, replayed, then replay paused
  // before its release, so a read of the table on the standby waits (and the primary's does not).
  const lockOnStandby = async () => {
    const own = createPg(primary!.url, 1);
    let release: () => void = () => undefined;
    let locked: (lsn: string) => void = () => undefined;
    const lockedAt = new Promise<string>((r) => (locked = r));
    const held = own.begin(async (sql) => {
      await sql`LOCK TABLE dead_letters IN ACCESS EXCLUSIVE MODE`;
      locked((await sql<{ lsn: string }[]>`SELECT pg_current_wal_insert_lsn()::text AS lsn`)[0]!.lsn);
      await new Promise<void>((r) => (release = r));
    });
    const lsn = await lockedAt;
    await waitFor(
      'the lock replayed',
      async () => (await standbySql<{ ok: boolean }[]>`SELECT pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn AS ok`)[0]!.ok,
      30_000,
      50,
    );
    await standbySql`SELECT pg_wal_replay_pause()`;
    await waitFor('replay paused', async () => (await standbySql<{ s: string }[]>`SELECT pg_get_wal_replay_pause_state() AS s`)[0]!.s === 'paused');
    release();
    await held;
    await own.end();
  };
  const waitingOnStandby = async () =>
    (
      await standbySql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()`
    )[0]!.n > 0;
  const stopStandby = async () => {
    await standbySql.end({ timeout: 1 });
    standby!.stop();
  };
  const startStandby = async () => {
    standby!.start();
    standbySql = createPg(standby!.url, 1);
    await waitFor('back on the standby after its restart', async () => inRecovery(await readDb(w.actors.auditor)), 60_000, 200);
  };

  it('an export whose standby stops before it has sent a byte is read from the primary instead', async () => {
    // Counted, and the standby has replayed what was counted: its rows will be read there ...
    const res = await getExport(getRequest('/api/v1/dead-letters/export?format=csv&source=orders', w.tokens.personal.auditor), ctx({}));
    expect(res.status).toBe(200);
    // ... where the first batch, read as the download starts, waits, and the standby then stops.
    await lockOnStandby();
    try {
      const body = res.text();
      await waitFor('its first batch waiting on the standby', waitingOnStandby, 30_000, 50);
      await stopStandby();
      const rows = (await body).split('\r\n').filter(Boolean);
      expect(rows[0]).toMatch(/^"id","source"/);
      expect(rows).toHaveLength(1 + Number(res.headers.get('x-total-count')));
    } finally {
      await startStandby();
    }
  });

  it('an export whose standby stops after rows went out goes on from the primary: the file is whole', async () => {
    const many = await recordDeadLetters(
      w.sources.payments,
      Array.from({ length: 600 }, (_, i) => ({ ...dl(1_000 + i), messageId: `p-${i}` })),
    );
    expect(many).toHaveLength(600);
    // Read from the standby once it has them: on a loaded machine its replay lagged the write, and
    // the export's first batch, read there, came back empty.
    await standbyCaughtUp();
    const res = await getExport(getRequest('/api/v1/dead-letters/export?format=ndjson&source=payments', w.tokens.personal.auditor), ctx({}));
    expect(res.status).toBe(200);
    const total = Number(res.headers.get('x-total-count'));
    expect(total).toBe(600);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    // The first batch (500 rows) is read from the standby and sent ...
    const first = await reader.read();
    expect(first.done).toBe(false);
    text += decoder.decode(first.value, { stream: true });
    await lockOnStandby();
    try {
      // ... the next one waits on the standby, which then stops.
      const rest = (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return 'ended';
          text += decoder.decode(value, { stream: true });
        }
      })().catch((e: unknown) => e);
      await waitFor('its second batch waiting on the standby', waitingOnStandby, 30_000, 50);
      await stopStandby();
      // The batch it was reading is read again from the primary, and the rest after it.
      expect(await rest).toBe('ended');
      const ids = text
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { messageId: string }).messageId);
      expect(ids).toHaveLength(600);
      expect(new Set(ids)).toEqual(new Set(many.map((_, i) => `p-${i}`)));
    } finally {
      await startStandby();
    }
  });

  it('an export while the standby has not replayed the rows it counted streams every one of them', async () => {
    await standbySql`SELECT pg_wal_replay_pause()`;
    try {
      const late = await recordDeadLetters(
        w.sources.payments,
        Array.from({ length: 30 }, (_, i) => ({ ...dl(5_000 + i), messageId: `late-${i}` })),
      );
      expect(late).toHaveLength(30);
      const lagReads = async () => Number(/triage_db_primary_reads_total\{reason="lag"\} (\d+)/.exec((await renderMetrics(w.actors.admin)).body)?.[1] ?? 0);
      const before = await lagReads();
      const res = await getExport(getRequest('/api/v1/dead-letters/export?format=ndjson&source=payments', w.tokens.personal.auditor), ctx({}));
      expect(res.status).toBe(200);
      // Read from the primary, and counted: the standby was behind what the export counted.
      expect(await lagReads()).toBeGreaterThan(before);
      const lines = (await res.text()).split('\n').filter(Boolean);
      // The header counts on the primary: the file holds what it says, not the standby's older rows.
      expect(lines).toHaveLength(Number(res.headers.get('x-total-count')));
      expect(lines.filter((l) => l.includes('"late-')).length).toBe(30);
    } finally {
      await standbySql`SELECT pg_wal_replay_resume()`;
      await standbyCaughtUp();
    }
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
