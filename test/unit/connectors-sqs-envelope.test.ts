// AWS's failure records on SQS (lib/connectors/sqs/envelope.ts and its use in message.ts): each
// documented shape is read into the original event and its error, `auto` never takes a plain event
// for a wrapper, and hostile bodies are kept as they are.
import { describe, expect, it } from 'vitest';
import { outgoingRedrive } from '../support/outgoing';
import { ENVELOPE_KEY, topLevelValueSpan, unwrapEnvelope } from '@/lib/connectors/sqs/envelope';
import { redriveEntry, toDeadLetter } from '@/lib/connectors/sqs/message';
import type { OutgoingRedrive } from '@/lib/redrive/destinations';
import {
  LAMBDA_EVENT_TEXT,
  LAMBDA_TIMEOUT_RECORD,
  eventBridgeDlqMessage,
  lambdaDestinationRecord,
  lambdaDlqMessage,
  snsDlqNotification,
  type AwsShape,
} from '../support/aws-envelopes';

const now = new Date('2026-12-07T08:00:00Z');
const received = (shape: AwsShape, id = 'sqs-1') => ({
  MessageId: id,
  Body: shape.body,
  MessageAttributes: shape.attributes,
  Attributes: { ApproximateReceiveCount: '1', SentTimestamp: '1764500000000' },
});

/** The dead letter of a shape whose body is itself the payload, having checked it is kept byte for byte. */
function bodyKept(shape: AwsShape, opts: { envelope?: 'none' } = {}) {
  const d = toDeadLetter(received(shape), { now, ...opts });
  expect(Buffer.from(d.payload).toString()).toBe(shape.body);
  return d;
}

describe('SQS envelopes: the documented shapes', () => {
  it('a Lambda on-failure record: the event byte for byte, the error and stack from the response, the invoke count', () => {
    const d = toDeadLetter(received(lambdaDestinationRecord()), { now });
    expect(Buffer.from(d.payload).toString('utf8')).toBe(LAMBDA_EVENT_TEXT);
    expect(d).toMatchObject({
      messageId: 'sqs-1',
      errorType: 'OrderRejected',
      errorMessage: 'order 9e07af03 has no customer',
      receiveCount: 3,
      consumerName: 'my-function',
      contentType: 'application/json',
      lastFailedAt: new Date('2019-11-14T18:16:05.568Z'),
    });
    expect(d.errorStack).toBe('  File "/var/task/lambda_function.py", line 12, in lambda_handler\n    raise OrderRejected(order)');
    const evidence = d.headers![ENVELOPE_KEY] as Record<string, unknown>;
    expect(evidence).toMatchObject({
      type: 'lambda-destination',
      requestContext: { condition: 'RetriesExhausted', approximateInvokeCount: 3 },
      responseContext: { functionError: 'Unhandled' },
    });
    // The event is the payload, not kept twice.
    expect(evidence).not.toHaveProperty('requestPayload');
    expect(d.failureHistory![0]).toMatchObject({ reason: 'Lambda on-failure destination', count: 3, errorType: 'OrderRejected' });
  });

  it("a Lambda record without an errorType (a timeout) takes the function error and Lambda's message", () => {
    const d = toDeadLetter(received(LAMBDA_TIMEOUT_RECORD), { now });
    expect(JSON.parse(Buffer.from(d.payload).toString())).toEqual({ ORDER_IDS: ['9e07af03-ce31-4ff3-xmpl-36dce652cb4f'] });
    expect(d).toMatchObject({ errorType: 'Unhandled', errorMessage: expect.stringContaining('Process exited before completing request'), errorStack: null });
  });

  it("Lambda's classic DLQ: the body is the event, the error comes from the attributes, which are not sent back", () => {
    const d = bodyKept(lambdaDlqMessage());
    expect(d).toMatchObject({ errorType: 'TypeError', errorMessage: "Cannot read properties of undefined (reading 'id')" });
    expect(d.errorStack).toContain('at Runtime.handler');
    expect(d.headers).not.toHaveProperty('ErrorCode');
    expect(d.headers![ENVELOPE_KEY]).toMatchObject({ type: 'lambda-dlq', RequestID: 'd4d3a0f5-8b5e-4b4e-9c36-0c5b7c1e2f10', ErrorCode: '200' });
    const entry = redriveEntry(outgoing(d), '0', { fifo: false });
    expect('entry' in entry && Object.keys(entry.entry.MessageAttributes!).sort()).toEqual(['triage-original-id', 'triage-redrive-count']);
  });

  it('a Lambda DLQ message whose ErrorMessage is plain text keeps it whole', () => {
    const shape = lambdaDlqMessage();
    shape.attributes!.ErrorMessage = { DataType: 'String', StringValue: 'Task timed out after 3.00 seconds' };
    expect(toDeadLetter(received(shape), { now })).toMatchObject({ errorType: 'Lambda error 200', errorMessage: 'Task timed out after 3.00 seconds' });
  });

  it('an EventBridge target DLQ: ERROR_CODE and ERROR_MESSAGE, the target, retries + 1 attempts', () => {
    const d = bodyKept(eventBridgeDlqMessage());
    expect(d).toMatchObject({
      errorType: 'SDK_CLIENT_ERROR',
      errorMessage: 'Unable to invoke Lambda function: The function is not found',
      receiveCount: 3,
      consumerName: 'fulfil-order',
    });
    expect(d.headers![ENVELOPE_KEY]).toMatchObject({
      type: 'eventbridge',
      RULE_ARN: 'arn:aws:events:us-east-1:123456789012:rule/orders-to-fulfilment',
      EXHAUSTED_RETRY_CONDITION: 'MaximumRetryAttempts',
    });
    expect(Object.keys(d.headers!).sort()).toEqual(['$envelope', '$sqs']);
  });

  it("an SNS DLQ notification: the published text is the payload, its attributes the message's own", () => {
    const d = toDeadLetter(received(snsDlqNotification('{"order": 7}\n')), { now });
    expect(Buffer.from(d.payload).toString()).toBe('{"order": 7}\n');
    expect(d.headers).toMatchObject({ tenant: 'acme', priority: { $type: 'Number', value: '3' } });
    expect(d.headers![ENVELOPE_KEY]).toMatchObject({ type: 'sns', TopicArn: 'arn:aws:sns:us-west-2:123456789012:MyTopic', Subject: 'My First Message' });
    expect(d).toMatchObject({ consumerName: 'MyTopic', errorType: null });
  });

  it('an SNS DLQ with raw delivery is read only when the source says sns: nothing in it says SNS', () => {
    const rawMsg = { Body: 'plain text', MessageId: 'r', MessageAttributes: { tenant: { DataType: 'String', StringValue: 'acme' } } };
    expect(toDeadLetter(rawMsg, { now }).headers).not.toHaveProperty(ENVELOPE_KEY);
    const d = toDeadLetter(rawMsg, { now, envelope: 'sns' });
    expect(Buffer.from(d.payload).toString()).toBe('plain text');
    expect(d.headers).toMatchObject({ tenant: 'acme', [ENVELOPE_KEY]: { type: 'sns', RawMessageDelivery: true } });
  });

  it("auto leaves alone what SQS's redrive policy moved: a consumer of the source queue failed on that body whole", () => {
    const moved = { MessageId: 'm', Body: snsDlqNotification().body, Attributes: { DeadLetterQueueSourceArn: 'arn:aws:sqs:us-west-2:123456789012:orders' } };
    const d = toDeadLetter(moved, { now });
    expect(Buffer.from(d.payload).toString()).toBe(moved.Body);
    expect(d.headers).not.toHaveProperty(ENVELOPE_KEY);
    // The source says so: then it is read.
    expect(Buffer.from(toDeadLetter(moved, { now, envelope: 'sns' }).payload).toString()).toBe('Hello world!');
  });

  it('`none` keeps a Lambda record as it came', () => {
    const d = bodyKept(lambdaDestinationRecord(), { envelope: 'none' });
    expect(d.headers).not.toHaveProperty(ENVELOPE_KEY);
  });
});

describe('SQS envelopes: what is not one', () => {
  const plain = [
    '{"order":1}',
    '',
    'not json {',
    '{"requestContext":{"condition":"RetriesExhausted"},"requestPayload":{}}',
    // Everything but a failure condition: a success record is no dead letter's wrapper.
    lambdaDestinationRecord().body.replace('RetriesExhausted', 'Success'),
    lambdaDestinationRecord().body.replace('"approximateInvokeCount": 3', '"approximateInvokeCount": "3"'),
    '{"Type":"Notification","TopicArn":"not an arn","Message":"x","MessageId":"m","Timestamp":"t","Signature":"s"}',
    '{"Type":"Notification","TopicArn":"arn:aws:sns:x:1:t","Message":{"nested":true},"MessageId":"m","Timestamp":"t","Signature":"s"}',
    '["requestPayload","requestContext","TopicArn","Notification"]',
    '{"requestPayload": 1, "requestContext": "x"}',
  ];

  it.each(plain.map((b) => [b.slice(0, 60), b]))('auto keeps %j as it is', (_, body) => {
    expect(unwrapEnvelope(body, {}, 'auto')).toBeNull();
    const d = toDeadLetter({ MessageId: 'p', Body: body }, { now });
    expect(Buffer.from(d.payload).toString()).toBe(body);
    expect(d.headers).not.toHaveProperty(ENVELOPE_KEY);
  });

  it("auto ignores look-alike attributes that are not AWS's (a plain event with an ErrorCode)", () => {
    const attrs = {
      RequestID: { DataType: 'String', StringValue: 'abc' },
      ErrorCode: { DataType: 'String', StringValue: 'E_STOCK' },
      ErrorMessage: { DataType: 'String', StringValue: 'x' },
    };
    expect(unwrapEnvelope('{"order":1}', attrs, 'auto')).toBeNull();
    expect(
      unwrapEnvelope(
        '{"order":1}',
        {
          RULE_ARN: { DataType: 'String', StringValue: 'mine' },
          TARGET_ARN: { DataType: 'String', StringValue: 'x' },
          ERROR_CODE: { DataType: 'String', StringValue: 'y' },
        },
        'auto',
      ),
    ).toBeNull();
  });

  it('a source set to one shape keeps a message that is not one as it is, and says why in the evidence', () => {
    const d = toDeadLetter({ MessageId: 'p', Body: '{"order":1}' }, { now, envelope: 'lambda-destination' });
    expect(Buffer.from(d.payload).toString()).toBe('{"order":1}');
    expect(d.headers![ENVELOPE_KEY]).toEqual({ type: 'lambda-destination', problem: 'the record has no requestContext' });
    const bad = toDeadLetter({ MessageId: 'p', Body: '{"order":' }, { now, envelope: 'lambda-destination' });
    expect(bad.headers![ENVELOPE_KEY]).toEqual({ type: 'lambda-destination', problem: 'the body is not a JSON object' });
    expect(toDeadLetter({ MessageId: 'p', Body: 'x' }, { now, envelope: 'eventbridge' }).headers![ENVELOPE_KEY]).toMatchObject({
      problem: expect.stringContaining('RULE_ARN'),
    });
  });

  it('a 1 MB body: a plain one is kept whole, a 1 MB Lambda record yields its 1 MB event byte for byte', () => {
    const big = JSON.stringify({ blob: 'x'.repeat(1024 * 1024) });
    const d = toDeadLetter({ MessageId: 'p', Body: big }, { now });
    expect(Buffer.from(d.payload).byteLength).toBe(Buffer.byteLength(big));
    const record = lambdaDestinationRecord(big);
    const w = toDeadLetter({ MessageId: 'p', Body: record.body }, { now });
    expect(Buffer.from(w.payload).equals(Buffer.from(big))).toBe(true);
    // An unclosed record of 1 MB of escaped quotes is no record.
    expect(unwrapEnvelope(`{"requestContext":{},"requestPayload":"${'\\"'.repeat(500_000)}`, {}, 'auto')).toBeNull();
  });
});

describe('topLevelValueSpan', () => {
  it('finds a top-level value past strings holding braces, quotes and escapes, the last duplicate winning', () => {
    const text = '{"a":"}\\"{","requestPayload" : [1, {"b":"]"}] , "c":{"requestPayload":0},"requestPayload":{"x":"\\\\"}}';
    const span = topLevelValueSpan(text, 'requestPayload')!;
    expect(text.slice(...span)).toBe('{"x":"\\\\"}');
    const escaped = '{"\\u0072equestPayload": null}';
    expect(escaped.slice(...topLevelValueSpan(escaped, 'requestPayload')!)).toBe('null');
    expect(topLevelValueSpan('{"a": 1}', 'requestPayload')).toBeNull();
  });
});

function outgoing(d: ReturnType<typeof toDeadLetter>): OutgoingRedrive {
  return outgoingRedrive({ messageId: d.messageId, payload: d.payload, contentType: d.contentType ?? null, headers: d.headers ?? {} });
}
