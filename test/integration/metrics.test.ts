// The metrics a Prometheus scraper gets with a personal API token: the sources its user may read,
// open counts, oldest ages, totals by reason, alarm states and redrive progress. (The route itself,
// app/api/metrics, is the guard plus renderMetrics; the browser suite scrapes it over HTTP.)
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { SYSTEM } from '@/lib/auth';
import { createPersonalToken } from '@/lib/admin/tokens';
import { actorFromPersonalToken } from '@/lib/auth/actor';
import { renderMetrics } from '@/lib/metrics/render-metrics';
import { evaluateAlarms } from '@/lib/alarms/evaluate-alarms';
import { HOUR, SECOND, systemClock } from '@/lib/clock';
import { db } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { computeRollups } from '@/lib/rollups/compute-rollups';
import { drainBacklog } from '@/lib/search';
import { deadLetter, demoWorld } from './sla-fixtures';

async function scrape(token: string) {
  const actor = await actorFromPersonalToken(token);
  if (!actor) return { status: 401, type: null, text: '' };
  const { contentType, body } = await renderMetrics(actor);
  return { status: 200, type: contentType, text: body };
}

/** The value of one sample, e.g. value(text, 'triage_dead_letters_open{source="orders"}'). */
function value(text: string, sample: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}

describe('/api/metrics', () => {
  freshDatabase();

  it('serves a scraper the sources its token’s user may read, current as of the last evaluation', async () => {
    const { sources } = await demoWorld();
    const now = systemClock.now();
    await recordDeadLetters(sources.orders, [
      deadLetter({ deadAt: new Date(now.getTime() - 2 * HOUR), enqueuedAt: new Date(now.getTime() - 5 * HOUR), reason: 'MaxReceives' }),
      deadLetter({ deadAt: new Date(now.getTime() - HOUR), reason: 'Rejected' }),
    ]);
    const [p] = await recordDeadLetters(sources.payments, [deadLetter({ deadAt: now })]);
    const task = await db().redriveTask.create({
      data: { sourceId: sources.payments.id, status: 'running', selection: { ids: [p!.id] }, total: 40, sent: 12, acknowledged: 10, noDeathSeen: 1 },
    });
    await evaluateAlarms(systemClock);
    await computeRollups(systemClock.now());

    const { token } = await createPersonalToken(SYSTEM, 'lead@triage.local');
    const m = await scrape(token);
    expect(m.status).toBe(200);
    expect(m.type).toContain('text/plain');
    expect(value(m.text, 'triage_dead_letters_open{source="orders"}')).toBe(2);
    expect(value(m.text, 'triage_dead_letters_open{source="notifications"}')).toBe(0);
    expect(m.text).not.toContain('payments');
    const oldest = value(m.text, 'triage_dead_letter_oldest_age_seconds{source="orders"}')!;
    expect(oldest).toBeGreaterThanOrEqual(2 * 3600);
    expect(oldest).toBeLessThan(2 * 3600 + 60);
    expect(value(m.text, 'triage_dead_letter_oldest_enqueued_age_seconds{source="orders"}')).toBeGreaterThanOrEqual(5 * 3600);
    expect(value(m.text, 'triage_dead_letters_total{source="orders",reason="MaxReceives"}')).toBe(1);
    expect(value(m.text, 'triage_dead_letters_total{source="orders",reason="Rejected"}')).toBe(1);
    expect(value(m.text, 'triage_alarm_state{source="orders",kind="depth"}')).toBe(1); // PENDING
    expect(value(m.text, 'triage_alarm_state{source="orders",kind="rate"}')).toBe(0);
    expect(value(m.text, 'triage_source_stats_age_seconds{source="orders"}')).toBeLessThan(15);
    expect(m.text).toContain('# TYPE triage_dead_letters_total counter');
    // The lead's two orders dead letters are not searchable until the search indexer has run.
    expect(value(m.text, 'triage_search_backlog')).toBe(2);

    const finance = await scrape((await createPersonalToken(SYSTEM, 'finance-lead@triage.local')).token);
    expect(value(finance.text, 'triage_dead_letters_open{source="payments"}')).toBe(1);
    expect(value(finance.text, 'triage_search_backlog')).toBe(1);
    await drainBacklog();
    expect(value((await scrape(token)).text, 'triage_search_backlog')).toBe(0);
    expect(value(finance.text, `triage_redrive_sent{task="${task.id}",source="payments",status="running"}`)).toBe(12);
    expect(value(finance.text, `triage_redrive_total{task="${task.id}",source="payments",status="running"}`)).toBe(40);
    expect(value(finance.text, `triage_redrive_no_death_seen{task="${task.id}",source="payments",status="running"}`)).toBe(1);
    expect(finance.text).not.toContain('orders');

    const auditor = await scrape((await createPersonalToken(SYSTEM, 'auditor@triage.local')).token);
    expect(['orders', 'notifications', 'payments'].map((s) => value(auditor.text, `triage_dead_letters_open{source="${s}"}`))).toEqual([2, 0, 1]);
  });

  it('counts on the spot when the maintenance worker has not refreshed lately', async () => {
    const { sources } = await demoWorld();
    await recordDeadLetters(sources.orders, [deadLetter({ deadAt: new Date(Date.now() - 10 * SECOND) })]);
    const m = await scrape((await createPersonalToken(SYSTEM, 'support@triage.local')).token);
    expect(value(m.text, 'triage_dead_letters_open{source="orders"}')).toBe(1);
  });

  it('refuses a scrape with an unknown or revoked token', async () => {
    await demoWorld();
    expect((await scrape('tri_p_not-a-real-token')).status).toBe(401);
    const { token, id } = await createPersonalToken(SYSTEM, 'lead@triage.local');
    await db().apiToken.update({ where: { id }, data: { revokedAt: new Date() } });
    expect((await scrape(token)).status).toBe(401);
  });
});
