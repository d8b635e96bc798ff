// AWS's failure records on a real SQS-compatible server (fauxqs): each documented shape is put on a
// dead-letter queue as Lambda, EventBridge or SNS would put it, the SQS connector imports it as the
// event it wraps (error, attempts, the wrapper kept as evidence, masked like a payload), and a redrive
// sends the event, byte for byte, to the source's target: the queue that triggers the function, or
// its redrive URL. Never the wrapper.
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { cliCreateSource } from '../support/cli';
import { SYSTEM, type Actor } from '@/lib/auth';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import { db, pg } from '@/lib/db';
import { startRedrive } from '@/lib/redrive';
import { startRedriveSupervisor } from '@/lib/redrive/supervisor';
import { getDeadLetter } from '@/lib/deadletters/get-dead-letter';
import { createTeam } from '@/lib/admin/teams';
import { createUser } from '@/lib/admin/users';
import {
  LAMBDA_EVENT_TEXT,
  LAMBDA_TIMEOUT_RECORD,
  eventBridgeDlqMessage,
  lambdaDestinationRecord,
  lambdaDlqMessage,
  snsDlqNotification,
  type AwsShape,
} from '../support/aws-envelopes';
import { waitFor, waitForDeadLetters, emulatorTestLifecycle } from './connectors-rabbitmq-support';
import { RECEIVER_SECRET, receiver, type Receiver, waitForTask } from './redrive-support';
import { queues, sqsSource, startEmulator, type Emulator } from './connectors-sqs-support';

async function put(emu: Emulator, url: string, shape: AwsShape) {
  await emu.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: shape.body, MessageAttributes: shape.attributes }));
}

/** Everything on a queue, read and left hidden (the test's only reader). */
async function drain(emu: Emulator, url: string, count: number): Promise<Message[]> {
  const got: Message[] = [];
  await waitFor(
    `${count} messages on the target queue`,
    async () => {
      const res = await emu.client.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 600, MessageAttributeNames: ['All'] }),
      );
      got.push(...(res.Messages ?? []));
      return got.length >= count;
    },
    60_000,
    100,
  );
  return got;
}

type Row = {
  message_id: string;
  payload: Buffer;
  error_type: string | null;
  error_message: string | null;
  error_stack: string | null;
  receive_count: number;
  consumer_name: string | null;
  headers: Record<string, unknown>;
  content_type: string | null;
};

describe('SQS connector: AWS failure records', () => {
  const running = emulatorTestLifecycle<Emulator, Receiver>(startEmulator);

  it("imports each documented shape as its event with its error, and redrives the events to the function's queue byte for byte", {
    timeout: 180_000,
  }, async () => {
    const q = await queues(running.server.client);
    // Lambda, EventBridge and SNS send to the DLQ themselves: no redrive policy names it, so the
    // queue that triggers the function is the source's target.
    const trigger = (await running.server.client.send(new CreateQueueCommand({ QueueName: `${q.run}-trigger` }))).QueueUrl!;
    const source = await sqsSource(q, 'orders-aws', running.server.endpoint, { sourceQueueUrl: trigger });
    const shapes = {
      lambda: lambdaDestinationRecord(),
      lambdaDlq: lambdaDlqMessage(),
      eventBridge: eventBridgeDlqMessage(),
      sns: snsDlqNotification('{"order": 7,\t"note": "café"}'),
      plain: { body: '{"order":8}', attributes: { tenant: { DataType: 'String', StringValue: 'acme' } } } as AwsShape,
      personal: {
        body: LAMBDA_TIMEOUT_RECORD.body
          .replace('"requestPayload":{"ORDER_IDS":["9e07af03-ce31-4ff3-xmpl-36dce652cb4f"]}', '"requestPayload":{"order":9}')
          .replace('Process exited', 'jane.doe@example.com: process exited'),
      },
    };
    for (const shape of Object.values(shapes)) await put(running.server, q.dlq, shape);
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500 });
    await waitForDeadLetters(source.id, 6);

    const rows = await pg()<Row[]>`
      SELECT message_id, payload, error_type, error_message, error_stack, receive_count, consumer_name, headers, content_type FROM dead_letters WHERE source_id = ${source.id}::uuid`;
    const byPayload = (text: string) => rows.find((r) => r.payload.toString('utf8') === text)!;
    const lambda = byPayload(LAMBDA_EVENT_TEXT);
    expect(lambda).toMatchObject({
      error_type: 'OrderRejected',
      error_message: 'order 9e07af03 has no customer',
      receive_count: 3,
      consumer_name: 'my-function',
      content_type: 'application/json',
    });
    expect(lambda.error_stack).toContain('raise OrderRejected(order)');
    expect(lambda.headers.$envelope).toMatchObject({
      type: 'lambda-destination',
      requestContext: { requestId: 'e4b46cbf-b738-xmpl-8880-a18cdf61200e', condition: 'RetriesExhausted' },
    });
    const lambdaDlq = byPayload(shapes.lambdaDlq.body);
    expect(lambdaDlq).toMatchObject({ error_type: 'TypeError', error_message: "Cannot read properties of undefined (reading 'id')" });
    expect(lambdaDlq.headers).not.toHaveProperty('RequestID');
    expect(lambdaDlq.headers.$envelope).toMatchObject({ type: 'lambda-dlq', ErrorCode: '200' });
    const eventBridge = byPayload(shapes.eventBridge.body);
    expect(eventBridge).toMatchObject({ error_type: 'SDK_CLIENT_ERROR', receive_count: 3, consumer_name: 'fulfil-order' });
    expect(eventBridge.headers.$envelope).toMatchObject({ type: 'eventbridge', TARGET_ARN: 'arn:aws:lambda:us-east-1:123456789012:function:fulfil-order' });
    const sns = byPayload('{"order": 7,\t"note": "café"}');
    // SNS reports no error: the clusters group by reason, as for a plain message.
    expect(sns).toMatchObject({ consumer_name: 'MyTopic', error_type: null });
    expect(sns.headers).toMatchObject({
      tenant: 'acme',
      priority: { $type: 'Number', value: '3' },
      $envelope: { type: 'sns', TopicArn: 'arn:aws:sns:us-west-2:123456789012:MyTopic' },
    });
    const plain = byPayload('{"order":8}');
    expect(plain.headers).not.toHaveProperty('$envelope');

    // A support engineer reads the evidence through the same masking as the payload and error.
    const user = await createUser(SYSTEM, { email: 'support@example.com', role: 'support', team: 'commerce', password: 'a-long-password-123' });
    const support: Actor = { userId: user.id, email: user.email, role: 'support', teamId: user.teamId, via: 'session' };
    const personal = byPayload('{"order":9}');
    expect(JSON.stringify(personal.headers.$envelope)).toContain('jane.doe@example.com');
    const id = (await db().deadLetter.findFirstOrThrow({ where: { sourceId: source.id, errorType: 'Unhandled' }, select: { id: true } })).id;
    const detail = await getDeadLetter(support, String(id));
    expect(detail.headers).toMatchObject({ $envelope: { type: 'lambda-destination', requestContext: { condition: 'RetriesExhausted' } } });
    expect(JSON.stringify(detail.headers)).not.toContain('jane.doe@example.com');
    expect(detail.errorMessage).not.toContain('jane.doe@example.com');

    const task = await startRedrive(SYSTEM, { selection: { source: source.name }, ratePerSecond: 1_000 });
    running.redrives = await startRedriveSupervisor({ reconcileMs: 500 });
    await waitForTask(task.id, 'all 6 sent', (x) => x.sent === 6);
    const back = await drain(running.server, trigger, 6);
    const bodies = back.map((m) => m.Body);
    // The events, never a wrapper: the Lambda event exactly as it sat in the record.
    expect(bodies.sort()).toEqual(
      [LAMBDA_EVENT_TEXT, shapes.lambdaDlq.body, shapes.eventBridge.body, '{"order": 7,\t"note": "café"}', '{"order":8}', '{"order":9}'].sort(),
    );
    const attributesOf = (body: string) => Object.keys(back.find((m) => m.Body === body)!.MessageAttributes ?? {}).sort();
    expect(attributesOf(shapes.lambdaDlq.body)).toEqual(['triage-original-id', 'triage-redrive-count']);
    expect(attributesOf(shapes.eventBridge.body)).toEqual(['triage-original-id', 'triage-redrive-count']);
    expect(attributesOf('{"order": 7,\t"note": "café"}')).toEqual(['priority', 'tenant', 'triage-original-id', 'triage-redrive-count']);
  });

  it("redrives a Lambda record to the source's redrive URL (the function's endpoint): the event, byte for byte, signed", { timeout: 120_000 }, async () => {
    const q = await queues(running.server.client);
    running.consumer = await receiver();
    const source = await sqsSource(q, 'orders-lambda-url', running.server.endpoint, { sourceQueueUrl: undefined, envelope: 'lambda-destination' });
    await db().source.update({ where: { id: source.id }, data: { redriveUrl: running.consumer.url, redriveSecret: RECEIVER_SECRET } });
    await put(running.server, q.dlq, lambdaDestinationRecord());
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500 });
    await waitForDeadLetters(source.id, 1);
    const [row] = await db().deadLetter.findMany({ where: { sourceId: source.id }, select: { messageId: true } });

    const task = await startRedrive(SYSTEM, { selection: { source: source.name }, ratePerSecond: 1_000 });
    running.redrives = await startRedriveSupervisor({ reconcileMs: 500 });
    await waitFor('delivered', async () => running.consumer!.deliveries.length === 1, 60_000, 250);
    const [d] = running.consumer.deliveries;
    expect(d!.body.equals(Buffer.from(LAMBDA_EVENT_TEXT, 'utf8'))).toBe(true);
    expect(d).toMatchObject({ signed: true, contentType: 'application/json', messageId: row!.messageId, redriveCount: '1' });
    await waitForTask(task.id, 'the task done', (x) => x.status === 'completed');
  });

  it('CLI: source create --kind sqs --envelope names the wrapper; an unknown one is refused by name', { timeout: 60_000 }, async () => {
    await createTeam(SYSTEM, { name: 'commerce' }).catch(() => undefined);
    const create = (name: string, envelope: string) =>
      cliCreateSource('sqs', ['--name', name, '--queue-url', 'https://sqs.us-east-1.amazonaws.com/123456789012/orders-dlq', '--envelope', envelope, '--json']);
    const ok = create('orders-eventbridge', 'eventbridge');
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ kind: 'sqs', connection: { envelope: 'eventbridge' } });
    const bad = create('orders-kinesis', 'kinesis');
    expect(bad.status).not.toBe(0);
    expect((JSON.parse(bad.stdout) as { error: string }).error).toMatch(/envelope/);
    expect(await db().source.count({ where: { name: 'orders-kinesis' } })).toBe(0);
  });
});
