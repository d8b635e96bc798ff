// processJob (lib/queue/process-job.ts): dispatch by catalog name, payloads parsed with the entry's
// schema. An unknown name is logged and completed (a stale schedule outlives the code); a bad
// payload fails the job for good, so BullMQ does not retry it. The processor is called here with
// job-shaped objects; test/integration/jobs-catalog.test.ts runs it under a real BullMQ worker.
import { UnrecoverableError, type Job } from 'bullmq';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { log } from '@/lib/log';
import { CATALOG, jobOptions, jobsOf } from '@/lib/queue/catalog';
import { processJob } from '@/lib/queue/process-job';

const job = (name: string, data: unknown) => ({ id: '1', name, data, attemptsMade: 0, opts: {} }) as unknown as Job;

describe('processJob', () => {
  afterEach(() => vi.restoreAllMocks());

  it('hands the parsed payload to the handler of the job name, and returns its result', async () => {
    const seen: unknown[] = [];
    const run = processJob('redrive', {
      redriveTask: async (data) => {
        seen.push(data);
        return 'done';
      },
    });
    expect(await run(job(CATALOG.redriveTask.name, { taskId: 't-1' }))).toBe('done');
    expect(seen).toEqual([{ taskId: 't-1' }]);
  });

  it('logs and completes a job whose name no handler serves', async () => {
    const warn = vi.spyOn(log, 'warn');
    const handler = vi.fn(async () => undefined);
    const run = processJob('maintenance', { alarmsEvaluate: handler });
    await expect(run(job('reports.email', {}))).resolves.toBeUndefined();
    // A catalog name served by another queue's worker is unknown here too.
    await expect(run(job(CATALOG.rollupsCompute.name, {}))).resolves.toBeUndefined();
    expect(handler).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[0]![0]).toMatchObject({ queue: 'maintenance', job: 'reports.email' });
    expect(String(warn.mock.calls[0]![1])).toContain('unknown job');
  });

  it('fails a bad payload for good, with a message naming the job and the field', async () => {
    const handler = vi.fn(async () => undefined);
    const run = processJob('webhooks', { webhookDeliver: handler });
    const failed = run(job(CATALOG.webhookDeliver.name, { deliveryId: 'drop table' }));
    await expect(failed).rejects.toBeInstanceOf(UnrecoverableError);
    await expect(failed).rejects.toThrow(/invalid payload for job webhook\.deliver: deliveryId: a delivery id/);
    await expect(run(job(CATALOG.webhookDeliver.name, undefined))).rejects.toBeInstanceOf(UnrecoverableError);
    expect(handler).not.toHaveBeenCalled();
  });

  it('takes scheduled jobs without a payload', async () => {
    const run = processJob('maintenance', { retentionSweep: async () => 'swept' });
    expect(await run(job(CATALOG.retentionSweep.name, undefined))).toBe('swept');
    expect(await run(job(CATALOG.retentionSweep.name, {}))).toBe('swept');
  });
});

describe('the job catalog', () => {
  it('gives each job its attempts and backoff, and every maintenance job a schedule', () => {
    expect(jobOptions(CATALOG.webhookDeliver, { jobId: 'd-1' })).toEqual({ attempts: 8, backoff: { type: 'webhook' }, jobId: 'd-1' });
    expect(jobOptions(CATALOG.message)).toMatchObject({ backoff: { type: 'triage' }, removeOnFail: false, stackTraceLimit: 0 });
    expect(jobOptions(CATALOG.redriveTask)).toEqual({ attempts: 1 });
    const maintenance = jobsOf('maintenance');
    expect(maintenance.length).toBeGreaterThan(0);
    for (const entry of maintenance) expect(entry.every, entry.name).toBeGreaterThan(0);
    // Job names are unique across the catalog: processJob dispatches by name.
    const names = Object.values(CATALOG).map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
