// Heartbeats: a worker that stops making progress is visible. Each worker process
// writes a heartbeat; health names every worker kind and is not ok while an expected one is
// stale; the metrics show each kind's heartbeat age. A stopped worker (SIGTERM) leaves no stale
// heartbeat behind; a killed one does, until another of its kind beats.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { closeDb } from '@/lib/db';
import { checkHealth } from '@/lib/health';
import { renderMetrics } from '@/lib/metrics/render-metrics';
import { closeQueues } from '@/lib/queue';
import { resetDatabase } from '../support/db';
import { spawnConsumer, waitFor } from './runtime-support';
import { killWorkerChildren } from '../support/worker-child';

const spawnWorker = (script: string) => spawnConsumer({ WORKER_HEARTBEAT_MS: '500' }, script);

const kindOf = async (kind: string, now?: Date) => (await checkHealth({ now })).workers.kinds.find((k) => k.kind === kind);

describe('worker heartbeats', () => {
  beforeEach(resetDatabase);
  afterEach(killWorkerChildren);
  afterAll(async () => {
    await closeQueues();
    await closeDb();
  });

  it('shows a running worker in health and metrics, and health is not ok once its heartbeat is stale', { timeout: 60_000 }, async () => {
    const w = spawnWorker('workers/search-indexer.ts');
    await w.ready;
    const fresh = await waitFor('a heartbeat', () => kindOf('search-indexer'), 10_000);
    expect(fresh).toMatchObject({ kind: 'search-indexer', instances: 1, stale: false });
    const h = await checkHealth();
    expect(h.workers.ok).toBe(true);
    expect(h.ok).toBe(true);

    const metrics = (await renderMetrics(SYSTEM)).body;
    expect(metrics).toMatch(/^triage_worker_heartbeat_age_seconds\{kind="search-indexer"\} \d/m);
    expect(metrics).toMatch(/^triage_worker_up\{kind="search-indexer"\} 1$/m);

    // Killed (no goodbye): a minute later its heartbeat is stale, and health says so.
    w.process.kill('SIGKILL');
    await w.exited;
    const later = new Date(Date.now() + 60_000);
    const stale = await checkHealth({ now: later });
    expect(stale.ok).toBe(false);
    expect(stale.workers.ok).toBe(false);
    expect(stale.workers.kinds.find((k) => k.kind === 'search-indexer')).toMatchObject({ stale: true });
    expect(stale.workers.stale).toEqual(['search-indexer']);
  });

  it('a worker stopped with SIGTERM takes its heartbeat with it: health stays ok', { timeout: 60_000 }, async () => {
    const w = spawnWorker('workers/search-indexer.ts');
    await w.ready;
    await waitFor('a heartbeat', () => kindOf('search-indexer'), 10_000);
    w.process.kill('SIGTERM');
    expect(await w.exited).toBe(0);
    const h = await checkHealth({ now: new Date(Date.now() + 60_000) });
    expect(h.workers.kinds.find((k) => k.kind === 'search-indexer')).toBeUndefined();
    expect(h.workers.ok).toBe(true);
  });
});
