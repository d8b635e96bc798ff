// Source policies: who may change them, what is refused, what is only warned about, and the trail.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { DAY } from '@/lib/clock';
import { closeDb, db } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { getSourcePolicy, updateSourcePolicy } from '@/lib/sources/update-policy';
import { resetDatabase } from '../support/db';
import { deadLetter, demoWorld } from './sla-fixtures';

// An AppError's code, or 'ZodError' for input refused by the schema (the guard answers both 4xx).
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: { code?: string; name?: string; details?: unknown }) => ({ code: e.code ?? e.name, details: e.details }),
  );

describe('source policies', () => {
  beforeEach(resetDatabase);
  afterAll(closeDb);

  it('lets the owning team’s lead change the deadline, audited with before and after', async () => {
    const { users, sources } = await demoWorld();
    const r = await updateSourcePolicy(users.lead, 'orders', { ageDeadlineSeconds: 3 * 86400, approvalThreshold: 500 });
    expect(r.source).toMatchObject({ name: 'orders', ageDeadlineSeconds: 3 * 86400, approvalThreshold: 500, redriveSecretSet: false });
    expect(r.warnings).toEqual([]);
    const [event] = await db().auditEvent.findMany({ where: { action: 'source.policy.update' } });
    expect(event).toMatchObject({
      actorEmail: 'lead@triage.local',
      sourceId: sources.orders.id,
      teamId: sources.orders.teamId,
      before: { ageDeadlineSeconds: 7 * 86400, approvalThreshold: 1000 },
      after: { ageDeadlineSeconds: 3 * 86400, approvalThreshold: 500 },
    });
  });

  it('sets the rate alarm’s thresholds per source, pending below alarm, audited', async () => {
    const { users } = await demoWorld();
    const r = await updateSourcePolicy(users.lead, 'orders', { alarmRatePending: 100, alarmRateAlarm: 400 });
    expect(r.source).toMatchObject({ alarmRatePending: 100, alarmRateAlarm: 400 });
    expect(await refusal(updateSourcePolicy(users.lead, 'orders', { alarmRateAlarm: 100 }))).toMatchObject({
      code: 'unprocessable',
      details: { field: 'alarmRateAlarm' },
    });
    expect(await refusal(updateSourcePolicy(users.lead, 'orders', { alarmRatePending: 0 }))).toMatchObject({ code: 'ZodError' });
    const [event] = await db().auditEvent.findMany({ where: { action: 'source.policy.update' } });
    expect(event).toMatchObject({ before: { alarmRatePending: 10, alarmRateAlarm: 50 }, after: { alarmRatePending: 100, alarmRateAlarm: 400 } });
  });

  it('refuses support engineers, and answers another team’s lead as if the source did not exist', async () => {
    const { users } = await demoWorld();
    expect(await refusal(updateSourcePolicy(users.support, 'orders', { ageDeadlineSeconds: 86400 }))).toMatchObject({ code: 'forbidden' });
    expect(await refusal(updateSourcePolicy(users.financeLead, 'orders', { ageDeadlineSeconds: 86400 }))).toMatchObject({ code: 'not_found' });
    expect(await refusal(updateSourcePolicy(users.auditor, 'orders', { ageDeadlineSeconds: 86400 }))).toMatchObject({ code: 'forbidden' });
    expect((await updateSourcePolicy(users.admin, 'orders', { ageDeadlineSeconds: 86400 })).source.ageDeadlineSeconds).toBe(86400);
    expect(await db().auditEvent.count({ where: { action: 'source.policy.update' } })).toBe(1);
  });

  it('refuses a deadline not shorter than the retention, and a retry loop as long as the retention', async () => {
    const { users } = await demoWorld();
    expect(await refusal(updateSourcePolicy(users.lead, 'orders', { ageDeadlineSeconds: 14 * 86400 }))).toMatchObject({
      code: 'unprocessable',
      details: { field: 'ageDeadlineSeconds' },
    });
    expect(await refusal(updateSourcePolicy(users.lead, 'orders', { retentionSeconds: 3 * 86400 }))).toMatchObject({ code: 'unprocessable' });
    // 100 receives × 1 h visibility = 100 h > 4 d retention
    const longLoop = { retentionSeconds: 4 * 86400, ageDeadlineSeconds: 2 * 86400, maxReceives: 100, visibilityTimeoutMs: 3_600_000 };
    expect(await refusal(updateSourcePolicy(users.lead, 'orders', longLoop))).toMatchObject({
      code: 'unprocessable',
      details: { field: 'maxReceives' },
    });
    expect(await refusal(updateSourcePolicy(users.lead, 'orders', { redriveUrl: 'ftp://example.com/x' }))).toMatchObject({ code: 'ZodError' });
    expect(await refusal(updateSourcePolicy(users.lead, 'orders', { redriveUrl: 'http://192.168.1.20/redrive' }))).toMatchObject({
      code: 'unprocessable',
      details: { field: 'redriveUrl' },
    });
    const unchanged = await getSourcePolicy(users.support, 'orders');
    expect(unchanged.source).toMatchObject({ retentionSeconds: 14 * 86400, ageDeadlineSeconds: 7 * 86400, maxReceives: 10 });
  });

  it('warns about max receives 1 and a retry loop approaching the retention, and saves', async () => {
    const { users } = await demoWorld();
    const one = await updateSourcePolicy(users.lead, 'orders', { maxReceives: 1 });
    expect(one.warnings.map((w) => w.message)).toEqual(['Max receives 1: one network blip parks a good message']);
    const loop = await updateSourcePolicy(users.lead, 'orders', { maxReceives: 20, visibilityTimeoutMs: 12 * 3_600_000 });
    expect(loop.warnings).toEqual([{ field: 'maxReceives', message: expect.stringContaining('approaches the retention') }]);
    expect(loop.source.maxReceives).toBe(20);
  });

  it('keeps the redrive secret write-only, in the trail too', async () => {
    const { users } = await demoWorld();
    const r = await updateSourcePolicy(users.lead, 'orders', { redriveUrl: 'https://partner.example/redrive', redriveSecret: 'a-long-enough-secret-1' });
    expect(r.source).toMatchObject({ redriveUrl: 'https://partner.example/redrive', redriveSecretSet: true });
    expect(JSON.stringify(r)).not.toContain('a-long-enough-secret-1');
    await updateSourcePolicy(users.lead, 'orders', { redriveSecret: 'another-long-secret-2' });
    const events = await db().auditEvent.findMany({ where: { action: 'source.policy.update' }, orderBy: { id: 'asc' } });
    expect(JSON.stringify(events.map((e) => [e.before, e.after]))).not.toMatch(/a-long-enough-secret-1|another-long-secret-2/);
    expect(events[1]).toMatchObject({ before: { redriveSecret: 'set' }, after: { redriveSecret: 'replaced' } });
  });

  it('re-dates the expiry of open dead letters when the retention changes', async () => {
    const { users, sources } = await demoWorld();
    const deadAt = new Date('2026-03-01T00:00:00Z');
    const [d] = await recordDeadLetters(sources.orders, [deadLetter({ deadAt, enqueuedAt: new Date(deadAt.getTime() - 2 * DAY) })]);
    const r = await updateSourcePolicy(users.lead, 'orders', { retentionSeconds: 30 * 86400 });
    expect(r.redated).toBe(1);
    const row = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(d!.id) } });
    expect(row.expiresAt).toEqual(new Date(deadAt.getTime() + 28 * DAY));
  });
});
