import { describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { createUser } from '@/lib/admin/users';
import { createSource } from '@/lib/sources/create-source';
import { recordDeadLetters, type NewDeadLetter } from '@/lib/intake/record-dead-letters';
import { listDeadLetters } from '@/lib/deadletters/list-dead-letters';
import { pg } from '@/lib/db';
import { drainBacklog, payloadText } from '@/lib/search';
import { freshDatabase } from '../support/lifecycle';

const utf8 = (s: string) => Buffer.from(s, 'utf8');
/** A dead letter received once, with no headers. */
const receivedOnce = (d: Omit<NewDeadLetter, 'receiveCount' | 'headers'>): NewDeadLetter => ({ ...d, receiveCount: 1, headers: {} });
// Payloads on both sides of search_payload_text's line: what Postgres decides itself must be what
// payloadText decides, and the rest must still reach payloadText.
const PAYLOADS: Record<string, Buffer> = {
  json: utf8('{"order":"gift-417","city":"Tallinn"}'),
  empty: Buffer.alloc(0),
  accents: utf8('Größe: Café für Zoë, 東京 🎁'),
  nul: Buffer.concat([utf8('before'), Buffer.from([0]), utf8('after')]),
  bom: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8('{"bom":true}')]),
  invalid: Buffer.from([0xc3, 0x28, 0x41]),
  surrogate: Buffer.concat([utf8('x'), Buffer.from([0xed, 0xa0, 0x80]), utf8('y')]),
  overlong: Buffer.from([0xc0, 0xaf, 0x41]),
  beyondUnicode: Buffer.from([0xf4, 0x90, 0x80, 0x80]),
  loneContinuation: Buffer.from([0x41, 0x80]),
  cutAtEnd: Buffer.concat([utf8('cut '), Buffer.from([0xe6, 0x9d])]),
  exactly4096: utf8(`${'a'.repeat(4_095)}z`),
  ascii4097: utf8('b'.repeat(4_097)),
  emoji4096Bytes: utf8('🎁'.repeat(1_024)),
  emojiLong: utf8('🎁'.repeat(3_000)),
  twoByteLong: utf8('é'.repeat(5_000)),
  beyondHead: utf8('c'.repeat(20_000)),
};

describe('searchable payload text', () => {
  // Each test's dead letters go to the commerce team's orders source.
  let orders: Awaited<ReturnType<typeof createSource>>;
  freshDatabase({
    seed: async () => {
      await createTeam(SYSTEM, { name: 'commerce' });
      orders = await createSource(SYSTEM, { name: 'orders', team: 'commerce' });
    },
  });

  /** Every payload of PAYLOADS dead-lettered once, under its name, with an error of type E: the names. */
  async function recordEveryPayload(errorMessage: (messageId: string) => string): Promise<string[]> {
    const names = Object.keys(PAYLOADS);
    await recordDeadLetters(
      orders,
      names.map((messageId) =>
        receivedOnce({ messageId, payload: PAYLOADS[messageId]!, reason: 'MaxReceives', errorType: 'E', errorMessage: errorMessage(messageId) }),
      ),
    );
    return names;
  }

  it('is payloadText of the payload, whether Postgres or the indexer decides it', async () => {
    const names = await recordEveryPayload((messageId) => `failed ${messageId}`);
    expect(await drainBacklog({ limit: 5 })).toBe(names.length);
    const rows = await pg()<{ message_id: string; payload_text: string | null; error_text: string | null; in_sql: string | null }[]>`
      SELECT d.message_id, s.payload_text, s.error_text, search_payload_text(d.payload, d.payload_size) AS in_sql
      FROM dead_letter_search s JOIN dead_letters d ON d.id = s.dead_letter_id`;
    expect(rows).toHaveLength(names.length);
    const byName = new Map(rows.map((r) => [r.message_id, r]));
    for (const name of names) {
      const bytes = PAYLOADS[name]!;
      const expected = payloadText(bytes.subarray(0, 16_384), { truncated: bytes.byteLength > 16_384 });
      const row = byName.get(name)!;
      // The error text is the type, the message and the stack's head, one per line (no stack here).
      expect({ name, text: row.payload_text, error: row.error_text }).toEqual({ name, text: expected, error: `E\nfailed ${name}` });
      // Postgres answers only when it can answer exactly; NULL sends the payload to payloadText.
      if (row.in_sql !== null) expect({ name, inSql: row.in_sql }).toEqual({ name, inSql: expected });
    }
    // The short valid ones never left Postgres; the others did.
    const decidedInSql = names.filter((n) => byName.get(n)!.in_sql !== null).sort();
    expect(decidedInSql).toEqual(['accents', 'emoji4096Bytes', 'empty', 'exactly4096', 'json']);
  });

  it('is decided in Postgres inside a parallel query too (a report over millions of rows)', async () => {
    await recordEveryPayload(() => 'x');
    // The planner is made to run the query in parallel workers, as it does on a large table.
    const rows = await pg().begin(async (tx) => {
      const [{ v }] = (await tx`SELECT current_setting('server_version_num')::int AS v`) as unknown as [{ v: number }];
      await tx.unsafe(`SET LOCAL ${v >= 160000 ? 'debug_parallel_query' : 'force_parallel_mode'} = on`);
      await tx`SET LOCAL parallel_setup_cost = 0`;
      await tx`SET LOCAL parallel_tuple_cost = 0`;
      return tx<{ message_id: string; in_sql: string | null }[]>`
        SELECT d.message_id, search_payload_text(d.payload, d.payload_size) AS in_sql FROM dead_letters d`;
    });
    expect(
      rows
        .filter((r) => r.in_sql !== null)
        .map((r) => r.message_id)
        .sort(),
    ).toEqual(['accents', 'emoji4096Bytes', 'empty', 'exactly4096', 'json']);
  });

  it('finds a search in the error or the payload, never one spanning the two (one index holds both)', async () => {
    await recordDeadLetters(orders, [
      receivedOnce({
        messageId: 'm-1',
        payload: utf8('beta parcel to Riga'),
        reason: 'MaxReceives',
        errorType: 'E',
        errorMessage: 'upstream alpha refused',
      }),
      receivedOnce({ messageId: 'm-2', payload: utf8('{"city":"Oslo"}'), reason: 'MaxReceives', errorType: 'E', errorMessage: 'timeout' }),
    ]);
    await drainBacklog();
    const found = async (q: string) => (await listDeadLetters(SYSTEM, { q }, null, { limit: 10 })).deadLetters.map((d) => d.messageId).sort();
    expect(await found('alpha refused')).toEqual(['m-1']);
    expect(await found('parcel to riga')).toEqual(['m-1']);
    expect(await found('Oslo')).toEqual(['m-2']);
    expect(await found('timeout')).toEqual(['m-2']);
    // The two texts sit side by side in the index's expression, with a newline between them.
    expect(await found('refused\nbeta')).toEqual([]);
    expect(await found('refused beta')).toEqual([]);
    expect(await found('timeout\n{"city"')).toEqual([]);
  });

  it('finds what the page shows: the error type, a stack frame, and a part of the type in the filter, for every role', async () => {
    const support = await createUser(SYSTEM, { email: 'support@triage.local', role: 'support', team: 'commerce' });
    const asSupport = { userId: support.id, email: support.email, role: 'support' as const, teamId: support.teamId, via: 'session' as const };
    await recordDeadLetters(orders, [
      receivedOnce({
        messageId: 'node',
        payload: utf8('{"order":1}'),
        reason: 'Rejected',
        errorType: 'OrderSchemaError',
        errorMessage: 'field "gift" is unknown',
        errorStack: 'OrderSchemaError: field "gift" is unknown\n    at handleOrder (src/orders/handler.ts:41:11)\n    at consume (src/consumer.ts:12:5)',
      }),
      receivedOnce({
        messageId: 'java',
        payload: utf8('{"shipment":2}'),
        reason: 'Rejected',
        errorType: 'com.acme.shipping.ShipmentSchemaException',
        errorMessage: 'carrier missing',
      }),
    ]);
    await drainBacklog();
    for (const [who, actor] of [
      ['system', SYSTEM],
      ['support', asSupport],
    ] as const) {
      const found = async (f: { q?: string; errorType?: string }) =>
        (await listDeadLetters(actor, f, null, { limit: 10 })).deadLetters.map((d) => d.messageId).sort();
      expect(await found({ q: 'OrderSchemaError' }), who).toEqual(['node']);
      expect(await found({ q: 'handleOrder' }), who).toEqual(['node']);
      expect(await found({ q: 'ShipmentSchemaException' }), who).toEqual(['java']);
      // The filter takes a part of the type, whatever its case (a Java type without its package).
      expect(await found({ errorType: 'ShipmentSchemaException' }), who).toEqual(['java']);
      expect(await found({ errorType: 'schemaerror' }), who).toEqual(['node']);
      expect(await found({ errorType: 'SchemaE' }), who).toEqual(['java', 'node']);
    }
  });
});
