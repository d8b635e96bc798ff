// The maintenance worker after a Redis restart (every worker recovers by itself once Redis
// is back). Redis here, as in the Docker compose file, keeps nothing on disk: a restart forgets the
// job schedulers, and with them every alarm evaluation, rollup and retention sweep, while the
// worker's heartbeat (in Postgres) stays fresh. The restart is played on this run's own keys only
// (the Redis is shared): every key of the maintenance queue is deleted under the worker.
import { afterEach, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { pg } from '@/lib/db';
import { createSource } from '@/lib/sources/create-source';
import { JOBS, producerQueue, producerRedis, queuePrefix, QUEUES } from '@/lib/queue';
import { freshDatabase } from '../support/lifecycle';
import { killWorkerChildren, spawnWorkerChild } from '../support/worker-child';
import { waitFor } from './runtime-support';

const schedulers = async () => (await producerQueue(QUEUES.maintenance).getJobSchedulers()).map((s) => s.key ?? s.name).sort();

/** What a Redis restart without persistence does to the maintenance queue: every key gone. */
async function forgetMaintenanceQueue(): Promise<number> {
  const redis = producerRedis();
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${queuePrefix()}:${QUEUES.maintenance}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}

describe('maintenance worker', () => {
  freshDatabase({ queues: [QUEUES.maintenance] });
  afterEach(killWorkerChildren);

  it('puts its job schedulers back by itself when Redis forgot them, and the alarms are evaluated again', { timeout: 90_000 }, async () => {
    await producerQueue(QUEUES.maintenance).obliterate({ force: true });
    await createTeam(SYSTEM, { name: 'ops' });
    await createSource(SYSTEM, { name: `watched-${Date.now().toString(36)}`, team: 'ops', kind: 'ingest' });
    const lastEvaluation = async () => (await pg()<{ at: Date | null }[]>`SELECT max(evaluated_at) AS at FROM alarm_states`)[0]!.at;
    const child = spawnWorkerChild('workers/maintenance.ts');
    await child.ready;
    const expected = [JOBS.alarmsEvaluate, JOBS.rollupsCompute, JOBS.retentionSweep, JOBS.auditCheckpoint].sort();
    expect(await schedulers()).toEqual(expect.arrayContaining(expected));
    await waitFor('a first alarm evaluation', async () => (await lastEvaluation()) !== null, 30_000, 250);

    expect(await forgetMaintenanceQueue()).toBeGreaterThan(0);
    expect(await schedulers()).toEqual([]);

    // Within half a minute the schedulers are back, without a restart of the worker, and the alarm
    // evaluation runs again on them.
    const forgotten = new Date();
    await waitFor('the schedulers back', async () => (await schedulers()).length >= expected.length, 30_000, 250);
    expect(await schedulers()).toEqual(expect.arrayContaining(expected));
    await waitFor('an alarm evaluation after the restart', async () => ((await lastEvaluation())?.getTime() ?? 0) > forgotten.getTime(), 30_000, 250);
    expect(child.process.exitCode).toBeNull();
  });
});
