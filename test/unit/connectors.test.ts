// The connector layer's pure parts: secrets at rest and their redaction, the error-text conventions,
// the reconnect backoff, and the RabbitMQ message mapping (x-death, ids, headers both ways).
import { describe, expect, it } from 'vitest';
import { outgoingRedrive } from '../support/outgoing';
import { errorTextOf } from '@/lib/connectors/error-text';
import { decryptSecret, encryptSecret, redactUrl, scrubSecrets } from '@/lib/connectors/secrets';
import { reconnectDelay } from '@/lib/connectors/supervisor';
import { derivedMessageId, redrivePublish, redriveRoute, toDeadLetter, xDeathOf } from '@/lib/connectors/rabbitmq/message';

process.env.CONNECTOR_SECRET_KEY ??= 'a-connector-secret-key-for-unit-tests-only';
process.env.TRIAGE_STATE_DIR ??= '.triage/test';

const ts = (seconds: number) => ({ '!': 'timestamp', value: seconds });

describe('connector secrets', () => {
  it('round-trips through AES-256-GCM and refuses a tampered box', () => {
    const sealed = encryptSecret({ url: 'amqp://app:s3cret-pass@mq:5672/prod' });
    expect(sealed.toString('latin1')).not.toContain('s3cret');
    expect(decryptSecret(sealed)).toEqual({ url: 'amqp://app:s3cret-pass@mq:5672/prod' });
    sealed[sealed.length - 1]! ^= 1;
    expect(() => decryptSecret(sealed)).toThrow('cannot be decrypted');
  });

  it('redacts passwords and credential-like query parameters, and scrubs them out of error text', () => {
    expect(redactUrl('amqp://app:s3cret@mq:5672/prod?heartbeat=10&token=abc')).toBe('amqp://app:***@mq:5672/prod?heartbeat=10&token=***');
    expect(redactUrl('not a url')).toBe('(invalid URL)');
    const url = 'amqp://app:s3cret-pass@mq:5672/prod';
    expect(scrubSecrets(`connect to ${url} failed; password s3cret-pass`, { url })).toBe('connect to amqp://app:***@mq:5672/prod failed; password ***');
  });
});

describe('error text', () => {
  const body = (o: unknown) => Buffer.from(JSON.stringify(o));
  it('reads Spring, MassTransit and NServiceBus headers', () => {
    expect(
      errorTextOf({ 'x-exception-message': 'bad', 'x-exception-stacktrace': 'java.lang.IllegalStateException: bad\n\tat a.B.c(B.java:1)' }, body({})),
    ).toEqual({
      errorType: 'java.lang.IllegalStateException',
      errorMessage: 'bad',
      errorStack: 'java.lang.IllegalStateException: bad\n\tat a.B.c(B.java:1)',
      from: 'spring',
    });
    expect(errorTextOf({ 'mt-fault-exceptiontype': 'System.TimeoutException', 'MT-Fault-Message': 'late' }, body({}))).toMatchObject({
      errorType: 'System.TimeoutException',
      errorMessage: 'late',
      from: 'masstransit',
    });
    expect(errorTextOf({ 'NServiceBus.ExceptionInfo.ExceptionType': 'X', 'NServiceBus.ExceptionInfo.Message': Buffer.from('m') }, body({}))).toMatchObject({
      errorType: 'X',
      errorMessage: 'm',
      from: 'nservicebus',
    });
  });

  it("prefers the source's own headers and JSON paths, and never fails on a body that is not JSON", () => {
    const mapping = { typeHeader: 'x-err-type', messagePath: '$.error.message' };
    expect(errorTextOf({ 'x-err-type': 'Oops', 'x-exception-message': 'spring' }, body({ error: { message: 'from body' } }), mapping)).toEqual({
      errorType: 'Oops',
      errorMessage: 'from body',
      errorStack: null,
      from: 'source',
    });
    expect(errorTextOf({}, Buffer.from([0xff, 0x00]), mapping)).toEqual({ errorType: null, errorMessage: null, errorStack: null, from: null });
  });
});

describe('reconnect backoff', () => {
  it('doubles from the base up to the cap, half of it jitter', () => {
    expect(reconnectDelay(1, 1_000, 60_000, () => 0)).toBe(500);
    expect(reconnectDelay(1, 1_000, 60_000, () => 0.999999)).toBe(1_000);
    expect(reconnectDelay(4, 1_000, 60_000, () => 0)).toBe(4_000);
    expect(reconnectDelay(40, 1_000, 60_000, () => 1)).toBe(60_000);
  });
});

describe('RabbitMQ message mapping', () => {
  const xDeath = [
    { count: 2, reason: 'expired', queue: 'orders.retry', time: ts(1_800_000_100), exchange: 'retry', 'routing-keys': ['orders'] },
    { count: 1, reason: 'rejected', queue: 'orders', time: ts(1_800_000_000), exchange: 'shop', 'routing-keys': ['order.created', 'order.any'] },
  ];
  const headers = {
    'x-death': xDeath,
    'x-first-death-queue': 'orders',
    'x-first-death-reason': 'rejected',
    'x-raw': Buffer.from([0xff, 0x00]),
    'x-delivery-count': 3,
  };
  const msg = {
    content: Buffer.from('{"order":1}'),
    fields: { exchange: 'dlx', routingKey: 'order.created', deliveryTag: 1, redelivered: false },
    properties: {
      messageId: undefined,
      correlationId: 'c-1',
      contentType: 'application/json',
      timestamp: 1_799_999_990,
      headers,
      priority: 5,
      deliveryMode: 2,
    },
  } as never;

  it('maps x-death, the properties and the headers, and derives an id from the body and the first death', () => {
    const d = toDeadLetter(msg);
    expect(d).toMatchObject({ reason: 'Expired', correlationId: 'c-1', contentType: 'application/json', generation: 0, receiveCount: 4 });
    expect(d.messageId).toBe(derivedMessageId(Buffer.from('{"order":1}'), xDeathOf(headers)[1]!));
    expect(d.messageId).toMatch(/^sha256:[0-9a-f]{64}:1800000000:1$/);
    expect(d.enqueuedAt).toEqual(new Date(1_799_999_990_000));
    expect(d.firstFailedAt).toEqual(new Date(1_800_000_000_000));
    expect(d.deadAt).toEqual(new Date(1_800_000_100_000));
    expect(d.failureHistory!.map((h) => [h.reason, h.count, h.queue])).toEqual([
      ['expired', 2, 'orders.retry'],
      ['rejected', 1, 'orders'],
    ]);
    expect(d.headers!['x-raw']).toEqual({ $bytes: '/wA=' });
    expect(d.headers!.$amqp).toMatchObject({ priority: 5, deliveryMode: 2, deliveredExchange: 'dlx' });
    expect(toDeadLetter({ ...(msg as object), properties: { headers: { ...headers, 'x-triage-redrive-count': 2 } } } as never)).toMatchObject({
      generation: 2,
      redriveCount: 2,
    });
  });

  it('keeps a header named __proto__ as a header, nested ones too', () => {
    const odd = JSON.parse('{"__proto__": "top", "x-app": {"__proto__": {"deep": 1}}}') as Record<string, unknown>;
    const d = toDeadLetter({ ...(msg as object), properties: { headers: odd } } as never);
    expect(Object.getPrototypeOf(d.headers)).toBe(Object.prototype);
    expect(Object.keys(d.headers!)).toEqual(['__proto__', 'x-app', '$amqp']);
    expect(JSON.stringify(d.headers!['x-app'])).toBe('{"__proto__":{"deep":1}}');
  });

  it("publishes back to the first death's exchange and keys, without the broker's headers, with Triage's", () => {
    const d = toDeadLetter(msg);
    expect(redriveRoute(d.headers!, undefined)).toEqual({ exchange: 'shop', routingKey: 'order.created', cc: ['order.any'] });
    expect(redriveRoute(d.headers!, 'orders.fixed')).toEqual({ exchange: '', routingKey: 'orders.fixed', cc: [] });
    expect(redriveRoute({ 'x-original-exchange': 'shop', 'x-original-routingKey': 'k' }, undefined)).toEqual({ exchange: 'shop', routingKey: 'k', cc: [] });
    expect(redriveRoute({}, undefined)).toBeNull();
    const { content, options } = redrivePublish(
      outgoingRedrive({
        deadLetterId: 42n,
        messageId: d.messageId,
        payload: d.payload,
        contentType: 'application/json',
        headers: d.headers!,
        enqueuedAt: d.enqueuedAt ?? null,
        correlationId: 'c-1',
      }),
    );
    expect(content.toString()).toBe('{"order":1}');
    expect(Object.keys(options.headers)).toEqual(['x-raw', 'x-triage-redrive-count', 'x-triage-dead-letter-id']);
    expect(Buffer.compare(options.headers['x-raw'], Buffer.from([0xff, 0x00]))).toBe(0);
    expect(options).toMatchObject({ messageId: d.messageId, mandatory: true, priority: 5, deliveryMode: 2, correlationId: 'c-1', timestamp: 1_799_999_990 });
    expect(options.headers['x-triage-redrive-count']).toBe(1);
  });
});
