// The Azure Storage queue mapping, pure: a message's text and facts as a dead letter (base64 decoded
// or not, the error a poison message lacks), a dead letter back as text within Azure's 64 KiB, the
// settings (target queue of a -poison queue, names Azure accepts), and the traps.
import { describe, expect, it } from 'vitest';
import { outgoingRedrive } from '../support/outgoing';
import { azureQueueConfigSchema, azureQueueSecretSchema, targetQueueOf } from '@/lib/connectors/azure-queue/config';
import { payloadOf, payloadShape, redriveText, toDeadLetter, type AzureMessage } from '@/lib/connectors/azure-queue/message';
import { azureQueueTraps, messageTtlTrap } from '@/lib/connectors/azure-queue/traps';
import type { OutgoingRedrive } from '@/lib/redrive/destinations';

const inserted = new Date('2026-12-01T09:00:00Z');
const msg = (text: string, over: Partial<AzureMessage> = {}): AzureMessage => ({
  messageId: 'm-1',
  insertedOn: inserted,
  expiresOn: new Date(inserted.getTime() + 7 * 86_400_000),
  dequeueCount: 1,
  messageText: text,
  ...over,
});
const out = (payload: Buffer, over: Partial<OutgoingRedrive> = {}): OutgoingRedrive => outgoingRedrive({ payload, ...over });

describe('Azure queue message → dead letter', () => {
  it('decodes base64 to the exact bytes and keeps the facts under $azure', () => {
    const bytes = Buffer.from([0, 255, 1, 128]);
    const now = new Date('2026-12-01T10:00:00Z');
    const d = toDeadLetter(msg(bytes.toString('base64'), { dequeueCount: 2 }), { queue: 'orders-poison', encoding: 'base64', now });
    expect(Buffer.from(d.payload).equals(bytes)).toBe(true);
    expect(d).toMatchObject({
      messageId: 'm-1',
      generation: 0,
      redriveCount: 0,
      reason: 'MaxReceives',
      receiveCount: 2,
      enqueuedAt: inserted,
      consumerName: 'orders',
      errorType: 'PoisonMessage',
    });
    expect(d.headers).toEqual({
      $azure: {
        queue: 'orders-poison',
        messageId: 'm-1',
        insertedOn: inserted.toISOString(),
        expiresOn: '2026-12-08T09:00:00.000Z',
        dequeueCount: 2,
        encoding: 'base64',
      },
    });
    expect(d.errorMessage).toBe('Poison message on queue orders-poison: not JSON (the message carries no exception)');
  });

  it('keeps a text that is not base64 as its text, with the reason', () => {
    const d = toDeadLetter(msg('héllo, not base64'), { queue: 'q-poison', encoding: 'base64' });
    expect(Buffer.from(d.payload).toString('utf8')).toBe('héllo, not base64');
    expect(d.errorType).toBe('TriageNotBase64');
    expect((d.headers!.$azure as Record<string, unknown>).encoding).toBe('text');
  });

  it('reads the error where the source says, else names the queue and the payload shape', () => {
    const body = '{"orderId":"A-1","error":{"type":"StockError","message":"out of stock"}}';
    expect(
      toDeadLetter(msg(body), { queue: 'q-poison', encoding: 'text', errorText: { typePath: '$.error.type', messagePath: '$.error.message' } }),
    ).toMatchObject({
      errorType: 'StockError',
      errorMessage: 'out of stock',
    });
    expect(toDeadLetter(msg(body), { queue: 'q-poison', encoding: 'text' }).errorMessage).toBe(
      'Poison message on queue q-poison: JSON object {error, orderId} (the message carries no exception)',
    );
    expect(payloadShape(Buffer.from('[1]'))).toBe('JSON array');
    expect(payloadShape(Buffer.alloc(0))).toBe('empty');
  });

  it('a re-death of a redrive is the next generation of the original message id', () => {
    const d = toDeadLetter(msg('{"a":1}', { messageId: 'new-id' }), { queue: 'q-poison', encoding: 'text', link: { originalId: 'first-id', redriveCount: 2 } });
    expect(d).toMatchObject({ messageId: 'first-id', generation: 2, redriveCount: 2 });
    expect((d.headers!.$azure as Record<string, unknown>).messageId).toBe('new-id');
  });

  it('base64 is checked strictly (whitespace allowed, padding required)', () => {
    expect(payloadOf('aGk=', 'base64')?.toString()).toBe('hi');
    expect(payloadOf('aG k=\n', 'base64')?.toString()).toBe('hi');
    expect(payloadOf('aGk', 'base64')).toBeNull();
    expect(payloadOf('{"a":1}', 'base64')).toBeNull();
    expect(payloadOf('', 'base64')?.length).toBe(0);
  });
});

describe('dead letter → Azure queue text', () => {
  it('sends the exact bytes, as base64 when the source reads base64', () => {
    const bytes = Buffer.from([0, 255]);
    expect(redriveText(out(bytes), 'base64')).toEqual({ text: 'AP8=' });
    expect(redriveText(out(Buffer.from('{"a":1}')), 'text')).toEqual({ text: '{"a":1}' });
    expect(redriveText(out(bytes), 'text')).toEqual({ error: expect.stringContaining('not UTF-8 text') });
  });

  it('refuses a message over 64 KiB as stored, naming its size', () => {
    expect(redriveText(out(Buffer.alloc(65_536, 120)), 'text')).toEqual({ text: 'x'.repeat(65_536) });
    expect(redriveText(out(Buffer.alloc(65_537, 120)), 'text')).toEqual({ error: 'The message is 65,537 bytes; an Azure queue message may be at most 65,536' });
    expect(redriveText(out(Buffer.alloc(49_153)), 'base64')).toEqual({
      error: 'The message is 65,540 bytes as base64; an Azure queue message may be at most 65,536',
    });
  });
});

describe('Azure queue settings', () => {
  it('a -poison queue redrives to its own queue unless the source names another', () => {
    expect(targetQueueOf({ queue: 'orders-poison' })).toBe('orders');
    expect(targetQueueOf({ queue: 'orders-poison', targetQueue: 'orders-v2' })).toBe('orders-v2');
    expect(targetQueueOf({ queue: 'orders' })).toBeNull();
  });

  it('takes the names Azure takes, and a connection string or a name and key', () => {
    expect(azureQueueConfigSchema.safeParse({ queue: 'orders-poison' }).success).toBe(true);
    for (const queue of ['Orders', 'ab', 'a--b', '-ab', 'ab-', 'a_b']) expect(azureQueueConfigSchema.safeParse({ queue }).success).toBe(false);
    expect(azureQueueSecretSchema.safeParse({ connectionString: 'UseDevelopmentStorage=true' }).success).toBe(true);
    expect(azureQueueSecretSchema.safeParse({ accountName: 'a', accountKey: 'k' }).success).toBe(true);
    expect(azureQueueSecretSchema.safeParse({ accountName: 'a' }).success).toBe(false);
    expect(azureQueueSecretSchema.safeParse({}).success).toBe(false);
    expect(azureQueueSecretSchema.safeParse({ connectionString: 'x', accountName: 'a', accountKey: 'k' }).success).toBe(false);
  });
});

describe('Azure queue traps', () => {
  const now = new Date('2026-12-01T12:00:00Z');
  it('the time to live: a note, and a warning when the oldest expires within a day', () => {
    const fresh = messageTtlTrap('q-poison', { insertedOn: new Date('2026-12-01T00:00:00Z'), expiresOn: new Date('2026-12-08T00:00:00Z') }, now)!;
    expect(fresh).toMatchObject({ code: 'message_ttl', severity: 'info' });
    expect(fresh.message).toContain('expire 7 d after they entered it');
    const near = messageTtlTrap('q-poison', { insertedOn: new Date('2026-11-25T00:00:00Z'), expiresOn: new Date('2026-12-02T00:00:00Z') }, now)!;
    expect(near).toMatchObject({ code: 'message_ttl', severity: 'warning', message: expect.stringContaining('the oldest expires in 12 h') });
    expect(messageTtlTrap('q-poison', { insertedOn: now, expiresOn: new Date('9999-12-31T23:59:59Z') }, now)).toBeNull();
    expect(messageTtlTrap('q-poison', null, now)).toBeNull();
  });

  it('no error text unless mapped, and maxDequeueCount as a note', () => {
    const config = azureQueueConfigSchema.parse({ queue: 'q-poison' });
    expect(azureQueueTraps(config, 'q', null, now).map((t) => t.code)).toEqual(['no_error_text', 'settings_not_readable']);
    expect(azureQueueTraps({ ...config, errorText: { messagePath: '$.error' } }, 'q', null, now).map((t) => t.code)).toEqual(['settings_not_readable']);
  });
});
