// A connector's health as its users watch it: connector_health rows (as the connectors worker writes
// them) raise the source's connector alarm after CONNECTOR_ALARM_AFTER_SECONDS (120 s) of failures,
// with the last error in the notification, and clear it once the import succeeds again; paused
// imports and other kinds of source have no such alarm. /api/metrics exports the same health.
import { describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { evaluateAlarms } from '@/lib/alarms/evaluate-alarms';
import { listAlarmStates } from '@/lib/alarms/list-alarms';
import { createPersonalToken } from '@/lib/admin/tokens';
import { actorFromPersonalToken } from '@/lib/auth/actor';
import { MINUTE, SECOND, manualClock } from '@/lib/clock';
import { db } from '@/lib/db';
import { renderMetrics } from '@/lib/metrics/render-metrics';
import { createWebhook } from '@/lib/notifications/webhooks';
import { createSource } from '@/lib/sources/create-source';
import { getSource } from '@/lib/sources/get-source';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { webhookTestLifecycle } from './webhook-support';
import { demoWorld, webhookReceiver } from './sla-fixtures';

const T0 = new Date('2026-03-02T09:00:00Z');
const REFUSED = 'Cannot reach the broker at 127.0.0.1:5672: connection refused';

function rabbitmqSource(name: string) {
  return createSource(SYSTEM, {
    name,
    team: 'commerce',
    kind: 'rabbitmq',
    connection: { queue: `${name}.dlq` },
    secret: { url: 'amqp://guest:guest@127.0.0.1:5672/' },
  });
}

/** What the supervisor writes: its columns set outright, as of the injected clock. */
async function health(
  sourceId: string,
  h: { failures: number; lastSuccessAt?: Date | null; lastError?: string | null; imported?: number; lag?: number | null; at: Date },
) {
  const row = {
    lastPollAt: h.at,
    lastSuccessAt: h.lastSuccessAt ?? null,
    consecutiveFailures: h.failures,
    lastError: h.lastError ?? null,
    lastErrorAt: h.lastError ? h.at : null,
    importedTotal: BigInt(h.imported ?? 0),
    lag: h.lag === undefined || h.lag === null ? null : BigInt(h.lag),
    updatedAt: h.at,
  };
  await db().connectorHealth.upsert({ where: { sourceId }, create: { sourceId, ...row }, update: row });
}

const at = (ms: number) => new Date(T0.getTime() + ms);

describe('connector health', () => {
  const webhooks = webhookTestLifecycle();

  it('raises the connector alarm after two minutes of failures, notifies the team, and clears it on reconnection', async () => {
    const { users } = await demoWorld();
    const source = await rabbitmqSource('orders-rmq');
    const receiver = await webhookReceiver();
    await createWebhook(users.lead, { url: receiver.url });
    webhooks.startWorker({ backoffBaseMs: 20 });
    const clock = manualClock(T0);

    // A connector that never connected: PENDING from the first evaluation that sees it failing.
    await health(source.id, { failures: 1, lastError: REFUSED, at: T0 });
    const first = await evaluateAlarms(clock);
    expect(first.transitions.map((t) => [t.sourceName, t.kind, t.from, t.to])).toEqual([['orders-rmq', 'connector', 'OK', 'PENDING']]);

    clock.set(at(MINUTE));
    await health(source.id, { failures: 6, lastError: REFUSED, at: at(MINUTE) });
    expect((await evaluateAlarms(clock)).transitions).toEqual([]);

    clock.set(at(2 * MINUTE + 15 * SECOND));
    await health(source.id, { failures: 9, lastError: REFUSED, at: at(2 * MINUTE + 15 * SECOND) });
    const raised = await evaluateAlarms(clock);
    expect(raised.transitions.map((t) => [t.kind, t.from, t.to, t.label])).toEqual([['connector', 'PENDING', 'ALARM', 'broker unreachable']]);
    const state = (await listAlarmStates(users.lead, { sourceId: source.id })).find((a) => a.kind === 'connector');
    expect(state).toMatchObject({ state: 'ALARM', label: 'broker unreachable', detail: { failures: 9, lastError: REFUSED, value: 135 } });
    expect(state!.hint).toMatch(/retries with backoff/);

    // It reconnects: the supervisor's next success resets the failures.
    clock.set(at(3 * MINUTE));
    await health(source.id, { failures: 0, lastSuccessAt: at(3 * MINUTE), lastError: null, imported: 12, lag: 0, at: at(3 * MINUTE) });
    expect((await evaluateAlarms(clock)).transitions.map((t) => [t.kind, t.from, t.to])).toEqual([['connector', 'ALARM', 'OK']]);

    await receiver.waitFor(3);
    const texts = receiver.received.map((r) => (JSON.parse(r.body) as { text: string }).text);
    expect(texts).toEqual([
      `[PENDING] orders-rmq connector alarm OK → PENDING: broker unreachable (1 failed attempt in a row): ${REFUSED} · broker unreachable: nothing is imported meanwhile (messages wait on the broker); the connector retries with backoff: check the broker, the credentials and the network`,
      expect.stringContaining(`orders-rmq connector alarm PENDING → ALARM: broker unreachable for 2 min (9 failed attempts in a row): ${REFUSED}`),
      '[OK] orders-rmq connector alarm ALARM → OK: the connector reaches its broker again and imports',
    ]);
    await receiver.close();
  });

  it('counts from the last success: a connector that worked and has failed for five minutes is in ALARM at once', async () => {
    await demoWorld();
    const source = await rabbitmqSource('payments-rmq');
    const clock = manualClock(at(5 * MINUTE));
    await health(source.id, { failures: 20, lastSuccessAt: T0, lastError: REFUSED, at: at(5 * MINUTE) });
    const r = await evaluateAlarms(clock);
    expect(r.transitions.map((t) => [t.kind, t.from, t.to])).toEqual([['connector', 'OK', 'ALARM']]);
  });

  it('has no connector alarm while the import is paused, nor for sources without a connector', async () => {
    const { users } = await demoWorld();
    const source = await rabbitmqSource('paused-rmq');
    await db().source.update({ where: { id: source.id }, data: { importPaused: true } });
    const clock = manualClock(at(10 * MINUTE));
    await health(source.id, { failures: 50, lastSuccessAt: T0, lastError: REFUSED, at: at(10 * MINUTE) });
    expect((await evaluateAlarms(clock)).transitions).toEqual([]);
    const states = await listAlarmStates(users.admin);
    expect(states.filter((a) => a.kind === 'connector').map((a) => [a.sourceName, a.state])).toEqual([['paused-rmq', 'OK']]);
  });

  it('exports each connector’s health to Prometheus, for the sources the scraper may read', async () => {
    await demoWorld();
    const up = await rabbitmqSource('up-rmq');
    const down = await rabbitmqSource('down-rmq');
    const now = new Date();
    const success = new Date(now.getTime() - 30 * SECOND);
    await health(up.id, { failures: 0, lastSuccessAt: success, imported: 2000, lag: 37, at: now });
    await health(down.id, { failures: 4, lastSuccessAt: null, lastError: REFUSED, at: now });
    const { token } = await createPersonalToken(SYSTEM, 'lead@triage.local');
    const { body } = await renderMetrics((await actorFromPersonalToken(token))!);
    const value = (sample: string) => {
      const line = body.split('\n').find((l) => l.startsWith(`${sample} `));
      return line === undefined ? undefined : Number(line.slice(sample.length + 1));
    };
    expect(value('triage_connector_up{source="up-rmq",kind="rabbitmq"}')).toBe(1);
    expect(value('triage_connector_up{source="down-rmq",kind="rabbitmq"}')).toBe(0);
    expect(value('triage_connector_imported_total{source="up-rmq",kind="rabbitmq"}')).toBe(2000);
    expect(value('triage_connector_lag{source="up-rmq",kind="rabbitmq"}')).toBe(37);
    expect(value('triage_connector_lag{source="down-rmq",kind="rabbitmq"}')).toBeUndefined();
    expect(value('triage_connector_last_success_timestamp_seconds{source="up-rmq",kind="rabbitmq"}')).toBe(success.getTime() / 1000);
    expect(value('triage_connector_last_success_timestamp_seconds{source="down-rmq",kind="rabbitmq"}')).toBe(0);
    expect(value('triage_connector_consecutive_failures{source="down-rmq",kind="rabbitmq"}')).toBe(4);
    expect(value('triage_connector_import_paused{source="up-rmq",kind="rabbitmq"}')).toBe(0);
    // Built-in sources have no connector series; another team's connector is not the lead's to see.
    expect(body).not.toMatch(/triage_connector_\w+\{source="orders"/);
    await createSource(SYSTEM, {
      name: 'finance-rmq',
      team: 'finance',
      kind: 'rabbitmq',
      connection: { queue: 'f.dlq' },
      secret: { url: 'amqp://guest:guest@127.0.0.1:5672/' },
    });
    const again = await renderMetrics((await actorFromPersonalToken(token))!);
    expect(again.body).not.toContain('finance-rmq');
  });

  it('says on the source that clusters group by reason only until error text is mapped or seen', async () => {
    const { users } = await demoWorld();
    const source = await rabbitmqSource('plain-rmq');
    const notice = async () => (await getSource(users.lead, 'plain-rmq')).connector!.errorText.notice;
    expect(await notice()).toMatch(/clusters will group by reason only/);
    // A dead letter that carried framework headers (the import mapped them to error text) ends it.
    await recordDeadLetters({ id: source.id, retentionSeconds: 86400 }, [
      { messageId: 'm1', payload: Buffer.from('{}'), reason: 'Rejected', errorType: 'java.lang.IllegalStateException', errorMessage: 'bad order' },
    ]);
    expect(await notice()).toBeNull();
    // So does a mapping, even before anything arrived.
    const mapped = await createSource(SYSTEM, {
      name: 'mapped-rmq',
      team: 'commerce',
      kind: 'rabbitmq',
      connection: { queue: 'm.dlq', errorText: { messagePath: '$.error.message' } },
      secret: { url: 'amqp://guest:guest@127.0.0.1:5672/' },
    });
    expect((await getSource(users.lead, mapped.name)).connector!.errorText).toMatchObject({ mapped: true, notice: null });
  });
});
