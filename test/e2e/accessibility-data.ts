// The data the accessibility spec's pages show: a source of its own holding breached, near-deadline,
// masked and discarded dead letters, a cluster, a redrive task, an audit event, a webhook, alarm
// states and a saved view per role. Made once by accessibility.setup.ts, then found by each worker.
import { evaluateAlarms } from '@/lib/alarms/evaluate-alarms';
import { ROLES, SYSTEM, type Role } from '@/lib/auth';
import { db } from '@/lib/db';
import { decideDeadLetter } from '@/lib/deadletters/decide';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { createWebhook } from '@/lib/notifications/webhooks';
import { startRedrive } from '@/lib/redrive/start-redrive';
import { computeRollups } from '@/lib/rollups/compute-rollups';
import { createSource } from '@/lib/sources/create-source';
import { createView } from '@/lib/saved-views';
import { ACTING } from '../security/fixtures';
import { principal } from './principal';

const SOURCE = 'a11y-pages';
const DAY = 86_400_000;

/** Ids of the records the pages show. */
export interface Seeded {
  source: string;
  deadLetter: string;
  masked: string;
  sensitive: string;
  discarded: string;
  cluster: string;
  redrive: string;
  auditEvent: string;
  /** An SQS source on an endpoint nothing listens on: its page says the retention could not be checked. */
  connector: string;
  /** A saved view of the dead-letter list per role, its own. */
  views: Record<Role, string>;
}

// Idempotent: the seeding project (accessibility.setup.ts) makes it all once, before the spec's
// workers start; each worker's beforeAll then runs it again to find the ids, as does a worker
// restarted after a failed test.
export async function seedAccessibility(): Promise<Seeded> {
  const actor = { ...SYSTEM, label: 'accessibility-suite' };
  const source =
    (await db().source.findUnique({ where: { name: SOURCE } })) ??
    (await createSource(actor, { name: SOURCE, team: 'commerce', description: 'What the accessibility suite looks at' }));
  const connector =
    (await db().source.findUnique({ where: { name: `${SOURCE}-sqs` } })) ??
    (await createSource(actor, {
      name: `${SOURCE}-sqs`,
      team: 'commerce',
      kind: 'sqs',
      connection: { queueUrl: 'http://127.0.0.1:9/000000000000/a11y-dlq', endpoint: 'http://127.0.0.1:9', region: 'us-east-1' },
      secret: {},
    }));
  const now = Date.now();
  const order = (n: number, extra: object = {}) => Buffer.from(JSON.stringify({ order: n, gift: true, ...extra }));
  const failure = (errorType: string, errorMessage: string, ageMs: number) => ({
    reason: 'MaxReceives' as const,
    errorType,
    errorMessage,
    errorStack: `${errorType}: ${errorMessage}\n    at capture (src/payments/capture.ts:41:11)\n    at handle (src/consumer.ts:12:5)`,
    receiveCount: 5,
    headers: { 'x-tenant': 'acme', 'content-type': 'application/json' },
    contentType: 'application/json',
    enqueuedAt: new Date(now - ageMs - 3_600_000),
    firstFailedAt: new Date(now - ageMs - 600_000),
    lastFailedAt: new Date(now - ageMs),
    deadAt: new Date(now - ageMs),
    consumerName: 'capture-worker',
    consumerVersion: 'v1',
    failureHistory: [
      {
        reason: 'MaxReceives',
        errorType,
        errorMessage,
        count: 5,
        firstAt: new Date(now - ageMs - 600_000).toISOString(),
        lastAt: new Date(now - ageMs).toISOString(),
      },
    ],
  });
  const rows = await recordDeadLetters({ id: source.id, retentionSeconds: source.retentionSeconds }, [
    // Past the 7-day deadline and in its last day: the SLA board's breached and near-deadline columns.
    { messageId: 'breached', payload: order(1), ...failure('TimeoutError', 'capture timed out after 30000 ms', 8 * DAY) },
    { messageId: 'near-deadline', payload: order(2), ...failure('ValidationError', 'field "gift" is unknown', 6.5 * DAY) },
    // Values the detectors mask (a card number, an e-mail), and a payload flagged sensitive as a whole.
    {
      messageId: 'masked',
      payload: order(3, { card: '4111 1111 1111 1111', email: 'carol@bank.example' }),
      ...failure('ValidationError', 'field "gift" is unknown', DAY),
    },
    { messageId: 'sensitive', payload: order(4), sensitive: true, ...failure('ValidationError', 'field "gift" is unknown', DAY) },
    { messageId: 'discarded', payload: order(5), ...failure('ValidationError', 'field "gift" is unknown', 2 * DAY) },
    { messageId: 'redriven', payload: order(6), ...failure('ConnectionError', 'connect ECONNREFUSED 10.0.0.7:5432', 3 * DAY) },
  ]);
  const id = (messageId: string) => rows.find((r) => r.messageId === messageId)!.id;
  // A discard, not an archive: the audit suite counts the archives a lead sees.
  const discarded = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id('discarded')) }, select: { status: true } });
  if (discarded.status === 'open') await decideDeadLetter(await principal(ACTING.lead), 'discard', id('discarded'), 'test data, holds personal data');
  const task =
    (await db().redriveTask.findFirst({ where: { sourceId: source.id } })) ??
    (await startRedrive(await principal(ACTING.lead), { selection: { ids: [id('redriven')] }, ratePerSecond: 1, reason: 'downstream back' }));
  if (!(await db().webhook.findFirst({ where: { teamId: source.teamId } }))) await createWebhook(actor, { url: 'http://127.0.0.1:9/hook', team: 'commerce' });
  // What the maintenance worker does every 15 s, now: alarm states and the charts' rollups.
  await evaluateAlarms();
  await computeRollups(new Date());
  const dl = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id('breached')) }, select: { clusterId: true } });
  const event = await db().auditEvent.findFirstOrThrow({ where: { targetId: id('discarded'), action: 'deadletter.discard' } });
  const views = {} as Record<Role, string>;
  for (const role of ROLES) {
    const owner = await principal(ACTING[role]);
    const name = 'the accessibility suite source';
    const existing = await db().savedView.findFirst({ where: { ownerId: owner.userId, page: 'dead_letters', name } });
    views[role] = existing?.id ?? (await createView(owner, { page: 'dead_letters', name, filters: `source=${source.name}`, shared: !!owner.teamId })).id;
  }
  return {
    source: source.name,
    deadLetter: id('breached'),
    masked: id('masked'),
    sensitive: id('sensitive'),
    discarded: id('discarded'),
    cluster: dl.clusterId!,
    redrive: task.id,
    auditEvent: event.id.toString(),
    connector: connector.name,
    views,
  };
}
