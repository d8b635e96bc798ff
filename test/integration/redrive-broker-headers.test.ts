// A redrive goes where the original came from. The broker's own headers (x-death, x-original-*,
// $nats, $sqs, $amqp, Nats-*, bullmq.*, Triage's) cannot be changed by an edit or a transform (422
// naming the header), and an application header still can.
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { ZodError } from 'zod';
import { db } from '@/lib/db';
import { AppError } from '@/lib/errors';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { editDeadLetter, previewTransform } from '@/lib/redrive/edit';
import { world, type World } from './redrive-support';

const w = {} as World;

const BROKER_HEADERS = {
  'x-tenant': 'acme',
  'x-death': [{ count: 1, reason: 'rejected', queue: 'orders.work', exchange: 'shop', 'routing-keys': ['order.created'] }],
  $amqp: { deliveryMode: 2 },
  $nats: { stream: 'ORDERS', subject: 'orders.created', seq: 42 },
  $sqs: { DeadLetterQueueSourceArn: 'arn:aws:sqs:eu-west-1:000000000000:orders' },
};

async function parked(): Promise<string> {
  const [r] = await recordDeadLetters({ id: w.orders.id, retentionSeconds: 14 * 86400 }, [
    {
      messageId: `m-${Date.now()}-${Math.random()}`,
      payload: Buffer.from('{"order":1,"gift":true}'),
      contentType: 'application/json',
      headers: BROKER_HEADERS,
      reason: 'Rejected',
      errorType: 'ValidationError',
      errorMessage: 'gift',
    },
  ]);
  return r!.id.toString();
}

async function refusal(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (e instanceof ZodError) return { status: 422, message: e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  expect(e, 'refused').toBeInstanceOf(AppError);
  return e as AppError;
}

describe("a copy cannot change the broker's own headers", () => {
  freshDatabase({ seed: async () => Object.assign(w, await world()) });

  it('an edit that changes, adds or removes a broker header is a 422 naming it, and writes nothing', async () => {
    const id = await parked();
    const forged = [
      ['x-death', { ...BROKER_HEADERS, 'x-death': [{ ...BROKER_HEADERS['x-death'][0], exchange: 'payments' }] }],
      ['x-original-exchange', { ...BROKER_HEADERS, 'x-original-exchange': 'payments' }],
      ['$nats', { ...BROKER_HEADERS, $nats: { ...BROKER_HEADERS.$nats, subject: 'payments.refund' } }],
      ['$sqs', { ...BROKER_HEADERS, $sqs: { DeadLetterQueueSourceArn: 'arn:aws:sqs:eu-west-1:000000000000:payments' } }],
      ['$amqp', Object.fromEntries(Object.entries(BROKER_HEADERS).filter(([k]) => k !== '$amqp'))],
      ['Nats-Expected-Stream', { ...BROKER_HEADERS, 'Nats-Expected-Stream': 'PAYMENTS' }],
      ['bullmq.jobId', { ...BROKER_HEADERS, 'bullmq.jobId': '7' }],
      ['x-triage-dead-letter-id', { ...BROKER_HEADERS, 'x-triage-dead-letter-id': '1' }],
    ] as const;
    for (const [name, headers] of forged) {
      const r = await refusal(editDeadLetter(w.support, id, { payload: '{"order":1}', headers: headers as Record<string, unknown>, reason: 'reroute' }));
      expect(r.status, name).toBe(422);
      expect(r.message, name).toContain(`headers["${name}"]`);
    }
    expect(await db().deadLetterVersion.count()).toBe(0);
    expect(await db().redriveTask.count()).toBe(0);
    // An application header may change; the broker's, kept as they were, go along untouched.
    const ok = await editDeadLetter(w.support, id, { payload: '{"order":1}', headers: { ...BROKER_HEADERS, 'x-tenant': 'globex' }, reason: 'fix the tenant' });
    expect(ok.diff.headers).toEqual([{ name: 'x-tenant', before: 'acme', after: 'globex' }]);
  });

  it("a transform's header step on a broker header is a 422 naming the step", async () => {
    const id = await parked();
    for (const name of ['x-death', 'X-Death', '$nats', '$sqs', 'x-original-routingKey', 'Nats-Msg-Id', 'Triage-Redrive-Count']) {
      const r = await refusal(previewTransform(w.support, { selection: { ids: [id] }, transform: [{ op: 'header', name, value: 'elsewhere' }] }));
      expect(r.status, name).toBe(422);
      expect(r.message, name).toMatch(/broker's or Triage's own header/);
    }
    const ok = await previewTransform(w.support, { selection: { ids: [id] }, transform: [{ op: 'header', name: 'x-tenant', value: 'globex' }] });
    expect(ok).toBeTruthy();
  });
});
