import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { sidekiqConfigSchema } from '@/lib/connectors/sidekiq/config';
import { backtraceOf, deadLetterOfEntry, redrivenJob, topLevelMembers } from '@/lib/connectors/sidekiq/job';
import { sidekiqTraps } from '@/lib/connectors/sidekiq/traps';

const entry = (job: string, score = '1700000002.5') => ({ member: Buffer.from(job), score });

describe('a dead Sidekiq job as a dead letter', () => {
  const lines = ["app/jobs/hard_job.rb:3:in `perform'", "sidekiq/processor.rb:196:in `execute_job'"];
  // As Sidekiq 6.x writes it: JobRetry#compress_backtrace (Base64.encode64 wraps lines every 60 characters).
  const compressed = `${deflateSync(JSON.stringify(lines))
    .toString('base64')
    .replace(/(.{60})/g, '$1\n')}\n`;
  const job = {
    retry: 3,
    queue: 'mail',
    class: 'HardJob',
    args: [1, { to: 'ü@example.com' }],
    jid: 'b4a577edbccf1d805744efa9',
    created_at: 1700000000.25,
    enqueued_at: 1700000000.5,
    error_message: 'boom',
    error_class: 'Net::ReadTimeout',
    failed_at: 1700000001.125,
    retry_count: 3,
    retried_at: 1700000002.375,
    error_backtrace: compressed,
  };

  it('keeps the member bytes, maps error, backtrace, counts and times', () => {
    const text = JSON.stringify(job);
    const d = deadLetterOfEntry(entry(text), 'dead', false);
    expect(Buffer.from(d.payload).toString()).toBe(text);
    expect(d).toMatchObject({
      messageId: job.jid,
      contentType: 'application/json',
      reason: 'MaxReceives',
      errorType: 'Net::ReadTimeout',
      errorMessage: 'boom',
      errorStack: lines.join('\n'),
      receiveCount: 4,
      consumerName: 'HardJob',
    });
    expect(d.deadAt!.toISOString()).toBe('2023-11-14T22:13:22.375Z');
    expect(d.firstFailedAt!.toISOString()).toBe('2023-11-14T22:13:21.125Z');
    expect(d.enqueuedAt!.toISOString()).toBe('2023-11-14T22:13:20.500Z');
    expect(d.headers).toMatchObject({
      'sidekiq.set': 'dead',
      'sidekiq.score': '1700000002.5',
      'sidekiq.queue': 'mail',
      'sidekiq.retry_count': 3,
      'sidekiq.remove_after_import': false,
    });
  });

  it('reads both backtrace formats: a JSON array (old releases) and base64 of zlib-compressed JSON', () => {
    expect(backtraceOf(lines)).toBe(lines.join('\n'));
    expect(backtraceOf(compressed)).toBe(lines.join('\n'));
    expect(backtraceOf(undefined)).toBeNull();
  });

  it('keeps a member that is not a job as it is, under an id of its bytes, dead at its score', () => {
    const d = deadLetterOfEntry(entry('not json {', '1700000000'), 'dead', true);
    expect(d).toMatchObject({ contentType: 'application/octet-stream', reason: 'Manual', errorType: null, receiveCount: 1 });
    expect(d.messageId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(d.deadAt!.getTime()).toBe(1_700_000_000_000);
  });
});

describe('the job a redrive pushes', () => {
  it('keeps every other field byte for byte, drops the failure, enqueues it now with the redrive count', () => {
    const text =
      '{"class":"HardJob","args":[12345678901234567890,1.10,{"a":"x,}]"}],"retry":true,"queue":"mail","jid":"j1","error_message":"boom","error_class":"E","failed_at":1.5,"retry_count":24,"retried_at":2.5,"error_backtrace":"eJw=","enqueued_at":1.0,"triage_redrive_count":1}';
    const out = redrivenJob(Buffer.from(text), 2, new Date(1_700_000_000_250))!;
    expect(out).toBe(
      '{"class":"HardJob","args":[12345678901234567890,1.10,{"a":"x,}]"}],"retry":true,"queue":"mail","jid":"j1","enqueued_at":1700000000.25,"triage_redrive_count":2}',
    );
  });

  it('refuses what Sidekiq could not read', () => {
    expect(redrivenJob(Buffer.from('[1,2]'), 1, new Date())).toBeNull();
    expect(redrivenJob(Buffer.from([0xff, 0x7b]), 1, new Date())).toBeNull();
    expect(topLevelMembers(' { "a" : [ 1 , 2 ] , "b":"\\"}" } ')).toEqual([
      ['a', '[ 1 , 2 ]'],
      ['b', '"\\"}"'],
    ]);
  });
});

describe("Sidekiq's traps", () => {
  const seen = { deadMaxJobs: 10_000, deadTimeoutSeconds: 180 * 86_400, dead: 10, removeAfterImport: false, noRetryClasses: [] as string[] };
  it("says the settings are the source's statement, and nothing more for Sidekiq's defaults", () => {
    expect(sidekiqTraps('dead', seen).map((t) => t.code)).toEqual(['settings_not_readable']);
  });
  it('warns of a small cap, a nearly full dead set, a short timeout and retry 0', () => {
    expect(sidekiqTraps('dead', { ...seen, deadMaxJobs: 500 }).map((t) => t.code)).toContain('failed_jobs_removed');
    const full = sidekiqTraps('dead', { ...seen, dead: 9_000 });
    expect(full.find((t) => t.code === 'failed_jobs_removed')!.message).toMatch(/holds 9000 of its dead_max_jobs 10000/);
    expect(sidekiqTraps('dead', { ...seen, dead: 9_000, removeAfterImport: true }).map((t) => t.code)).toEqual(['settings_not_readable']);
    expect(sidekiqTraps('dead', { ...seen, deadTimeoutSeconds: 3_600 }).map((t) => t.code)).toContain('dlq_retention_not_longer');
    expect(sidekiqTraps('dead', { ...seen, noRetryClasses: ['PoisonJob'] }).at(-1)!.message).toMatch(/PoisonJob have retry 0/);
  });
  it('takes the namespace redis-namespace writes, and not one with spaces', () => {
    expect(sidekiqConfigSchema.parse({ namespace: 'shop:v2' })).toMatchObject({ namespace: 'shop:v2', removeAfterImport: false, deadMaxJobs: 10_000 });
    expect(sidekiqConfigSchema.safeParse({ namespace: 'my shop' }).success).toBe(false);
  });
});
