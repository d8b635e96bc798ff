// Binary COPY encoder, checked against a real PostgreSQL: what the server reads back is the test.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryCopyChunks, type CopyColumn } from '@/lib/db/copy-binary';
import { withDefaultUser } from '@/lib/db-url.mjs';

const admin = new URL(withDefaultUser(process.env.DATABASE_URL ?? 'postgresql://127.0.0.1:5432/postgres'));
admin.pathname = '/postgres';
const dbName = `copy_binary_test_${process.pid}`;
const scratch = new URL(admin);
scratch.pathname = `/${dbName}`;

let sql: postgres.Sql;

beforeAll(async () => {
  const a = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  try {
    await a.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await a.unsafe(`CREATE DATABASE ${dbName}`);
  } finally {
    await a.end();
  }
  sql = postgres(scratch.toString(), { max: 1, onnotice: () => {} });
  await sql.unsafe(`CREATE TYPE mood AS ENUM ('calm', 'très-😀-agité')`);
  await sql.unsafe(`CREATE TABLE every_type (
    ord int4, id uuid, txt text, small int2, num int4, big int8, flag bool, at timestamptz, data bytea, doc jsonb, mood mood)`);
}, 60_000);

afterAll(async () => {
  await sql?.end();
  const a = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  try {
    await a.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  } finally {
    await a.end();
  }
}, 60_000);

type Row = {
  ord: number;
  id?: string | null;
  txt?: string | null;
  small?: number | null;
  num?: number | null;
  big?: bigint | number | string | null;
  flag?: boolean | null;
  at?: Date | string | null;
  data?: Uint8Array | null;
  doc?: unknown;
  mood?: string | null;
};

const COLUMNS: CopyColumn<Row>[] = [
  { name: 'ord', type: 'int4', get: (r) => r.ord },
  { name: 'id', type: 'uuid', get: (r) => r.id },
  { name: 'txt', type: 'text', get: (r) => r.txt },
  { name: 'small', type: 'int2', get: (r) => r.small },
  { name: 'num', type: 'int4', get: (r) => r.num },
  { name: 'big', type: 'int8', get: (r) => r.big },
  { name: 'flag', type: 'bool', get: (r) => r.flag },
  { name: 'at', type: 'timestamptz', get: (r) => r.at },
  { name: 'data', type: 'bytea', get: (r) => r.data },
  { name: 'doc', type: 'jsonb', get: (r) => r.doc },
  { name: 'mood', type: 'enum', get: (r) => r.mood },
];
const COPY = `COPY every_type (${COLUMNS.map((c) => c.name).join(', ')}) FROM STDIN WITH (FORMAT binary)`;

async function copyRows(rows: Iterable<Row>, opts?: { chunkBytes?: number }): Promise<void> {
  await pipeline(Readable.from(binaryCopyChunks(COLUMNS, rows, opts)), await sql.unsafe(COPY).writable());
}

type Back = {
  ord: number;
  id: string | null;
  txt: string | null;
  small: number | null;
  num: number | null;
  big: string | null;
  flag: boolean | null;
  at: Date | null;
  us: string | null;
  data: Buffer | null;
  doc: unknown;
  mood: string | null;
};
async function readBack(from: number, to: number): Promise<Back[]> {
  // us: microseconds since the Unix epoch, exact (extract returns numeric).
  return [
    ...(await sql<Back[]>`
    SELECT ord, id, txt, small, num, big::text AS big, flag, at, (extract(epoch FROM at) * 1000000)::int8::text AS us,
           data, doc, mood::text AS mood
    FROM every_type WHERE ord >= ${from} AND ord < ${to} ORDER BY ord`),
  ];
}

/** Walks a binary COPY stream chunk by chunk: every chunk must hold whole tuples only. Returns the tuple count. */
function countTuples(chunks: Buffer[], fields: number): number {
  expect(chunks[0]!.subarray(0, 11).equals(Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'))).toBe(true);
  expect(chunks[0]!.readInt32BE(11)).toBe(0);
  expect(chunks[0]!.readInt32BE(15)).toBe(0);
  let tuples = 0;
  chunks.forEach((c, k) => {
    let p = k === 0 ? 19 : 0;
    while (p < c.length) {
      const count = c.readInt16BE(p);
      p += 2;
      if (count === -1) {
        expect(k).toBe(chunks.length - 1);
        expect(p).toBe(c.length);
        return;
      }
      expect(count).toBe(fields);
      for (let f = 0; f < count; f++) {
        const len = c.readInt32BE(p);
        p += 4 + Math.max(len, 0);
      }
      expect(p).toBeLessThanOrEqual(c.length);
      tuples++;
    }
  });
  expect(chunks.at(-1)!.readInt16BE(chunks.at(-1)!.length - 2)).toBe(-1);
  return tuples;
}

const encode = (columns: CopyColumn<Row>[], rows: Row[]) => [...binaryCopyChunks(columns, rows)];

describe('binaryCopyChunks', () => {
  it('round-trips every type, NULLs, empty values and edge values through PostgreSQL', async () => {
    const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const big = randomBytes(5 * 1024 * 1024);
    const nested = {
      a: [1, 2.5, -3e-7, { b: null, c: [true, false] }],
      s: 'quote " backslash \\ tab \t newline \n é 😀 \u0001',
      literal: '\\u0000 is only text here',
      deep: { x: { y: { z: [[], {}] } } },
    };
    const rows: Row[] = [
      {
        ord: 0,
        id: '0f8fad5b-d9cb-469f-a165-70867728950e',
        txt: 'hello',
        small: 12,
        num: 123456,
        big: 42n,
        flag: true,
        at: new Date('2024-05-06T07:08:09.123Z'),
        data: Buffer.from('abc'),
        doc: { k: 'v' },
        mood: 'calm',
      },
      { ord: 1 }, // everything else undefined → NULL
      {
        ord: 2,
        id: null,
        txt: '',
        small: null,
        num: null,
        big: null,
        flag: false,
        at: null,
        data: new Uint8Array(0),
        doc: [],
        mood: null,
      },
      {
        ord: 3,
        id: 'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF',
        txt: 'naïve 中文 emoji 😀👩‍💻 and \u00ff',
        small: -32768,
        num: -2147483648,
        big: -(2n ** 63n),
        flag: null,
        at: new Date('1969-12-31T23:59:59.999Z'),
        data: allBytes,
        doc: nested,
        mood: 'très-😀-agité',
      },
      {
        ord: 4,
        id: '00000000-0000-0000-0000-000000000000',
        txt: 'x'.repeat(70_000),
        small: 32767,
        num: 2147483647,
        big: 2n ** 53n + 1n,
        flag: true,
        at: new Date('2400-02-29T23:59:59.999Z'),
        data: big,
        doc: 'just a string',
        mood: 'calm',
      },
      { ord: 5, big: -9007199254740991, at: '2024-01-02T03:04:05.123456+02:00', doc: 0, data: Buffer.alloc(1), txt: 'café ÿ 中文 😀' },
      { ord: 6, big: '9223372036854775807', at: new Date('1600-03-01T00:00:00.001Z'), doc: { n: 1e21, f: 0.1 }, txt: 'ß中'.repeat(40) },
      { ord: 7, big: 0, at: '2000-01-01T00:00:00Z', doc: { k: 'é中😀' }, txt: 'a'.repeat(32) },
      { ord: 8, doc: false, txt: 'b'.repeat(33) },
    ];
    await copyRows(rows);
    const back = await readBack(0, 100);
    expect(back.map((r) => r.ord)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const [r0, r1, r2, r3, r4, r5, r6, r7, r8] = back as [Back, Back, Back, Back, Back, Back, Back, Back, Back];

    expect(r0).toMatchObject({
      id: '0f8fad5b-d9cb-469f-a165-70867728950e',
      txt: 'hello',
      small: 12,
      num: 123456,
      big: '42',
      flag: true,
      doc: { k: 'v' },
      mood: 'calm',
    });
    expect(r0.at!.toISOString()).toBe('2024-05-06T07:08:09.123Z');
    expect(r0.data!.equals(Buffer.from('abc'))).toBe(true);

    expect(r1).toEqual({ ord: 1, id: null, txt: null, small: null, num: null, big: null, flag: null, at: null, us: null, data: null, doc: null, mood: null });

    expect(r2).toMatchObject({ txt: '', flag: false, doc: [], id: null });
    expect(r2.data!.length).toBe(0);

    expect(r3).toMatchObject({
      id: 'ffffffff-ffff-4fff-bfff-ffffffffffff',
      txt: 'naïve 中文 emoji 😀👩‍💻 and \u00ff',
      small: -32768,
      num: -2147483648,
      big: '-9223372036854775808',
      flag: null,
      doc: nested,
      mood: 'très-😀-agité',
    });
    expect(r3.at!.toISOString()).toBe('1969-12-31T23:59:59.999Z');
    expect(r3.us).toBe('-1000');
    expect(r3.data!.equals(allBytes)).toBe(true);

    expect(r4).toMatchObject({ id: '00000000-0000-0000-0000-000000000000', small: 32767, num: 2147483647, big: '9007199254740993', doc: 'just a string' });
    expect(r4.txt).toBe('x'.repeat(70_000));
    expect(r4.at!.toISOString()).toBe('2400-02-29T23:59:59.999Z');
    expect(r4.us).toBe((BigInt(Date.parse('2400-02-29T23:59:59.999Z')) * 1000n).toString());
    expect(r4.data!.length).toBe(big.length);
    expect(r4.data!.equals(big)).toBe(true);

    expect(r5.big).toBe('-9007199254740991');
    expect(r5.us).toBe((BigInt(Date.parse('2024-01-02T01:04:05.123Z')) * 1000n + 456n).toString());
    expect(r5.doc).toBe(0);
    expect(r5.data!.equals(Buffer.alloc(1))).toBe(true);
    expect(r5.txt).toBe('café ÿ 中文 😀');

    expect(r6.big).toBe('9223372036854775807');
    expect(r6.at!.toISOString()).toBe('1600-03-01T00:00:00.001Z');
    expect(r6.doc).toEqual({ n: 1e21, f: 0.1 });
    expect(r6.txt).toBe('ß中'.repeat(40));

    expect(r7.big).toBe('0');
    expect(r7.us).toBe('946684800000000');
    expect(r7.doc).toEqual({ k: 'é中😀' });
    expect(r7.txt).toBe('a'.repeat(32));
    expect(r8.doc).toBe(false);
    expect(r8.txt).toBe('b'.repeat(33));
  }, 60_000);

  it('encodes zero rows as header plus trailer, which PostgreSQL accepts', async () => {
    const chunks = encode(COLUMNS, []);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.length).toBe(19 + 2);
    expect(countTuples(chunks, COLUMNS.length)).toBe(0);
    await copyRows([]);
  });

  it('splits many rows into ~1 MiB chunks of whole tuples, and PostgreSQL reads them all', async () => {
    const payload = randomBytes(1024);
    const rows = Array.from(
      { length: 5000 },
      (_, i): Row => ({
        ord: 1000 + i,
        id: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
        txt: `row ${i}`,
        num: i,
        big: BigInt(i) * 1_000_000_007n,
        at: new Date(1_700_000_000_000 + i),
        data: payload,
        doc: { i },
        mood: 'calm',
      }),
    );
    const chunks = encode(COLUMNS, rows);
    expect(chunks.length).toBeGreaterThan(4);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(1 << 20);
    for (const c of chunks.slice(0, -1)) expect(c.length).toBeGreaterThan((1 << 20) - 2048); // full up to a tuple
    expect(countTuples(chunks, COLUMNS.length)).toBe(5000);

    await copyRows(rows);
    const [agg] = await sql<{ n: number; bytes: string; ok: number }[]>`
      SELECT count(*)::int AS n, sum(length(data))::text AS bytes,
             count(*) FILTER (WHERE data = ${payload} AND txt = 'row ' || (ord - 1000) AND num = ord - 1000
                               AND big = (ord - 1000)::int8 * 1000000007 AND doc = jsonb_build_object('i', ord - 1000))::int AS ok
      FROM every_type WHERE ord >= 1000 AND ord < 6000`;
    expect(agg).toEqual({ n: 5000, bytes: String(5000 * 1024), ok: 5000 });
  }, 60_000);

  it('honours chunkBytes, and gives a tuple larger than a chunk a chunk of its own', () => {
    const rows: Row[] = [
      { ord: 1, txt: 'a' },
      { ord: 2, data: Buffer.alloc(500) },
      { ord: 3, txt: 'b' },
      { ord: 4, txt: 'c' },
    ];
    const chunks = [...binaryCopyChunks(COLUMNS, rows, { chunkBytes: 200 })];
    expect(countTuples(chunks, COLUMNS.length)).toBe(4);
    const withBig = chunks.filter((c) => c.length > 200);
    expect(withBig).toHaveLength(1);
    expect(withBig[0]!.length).toBe(2 + 4 * COLUMNS.length + 4 + 500); // that tuple alone
    expect(() => [...binaryCopyChunks(COLUMNS, rows, { chunkBytes: 0 })]).toThrow(/chunkBytes/);
  });

  it('reads rows lazily', () => {
    let pulled = 0;
    function* rows(): Generator<Row> {
      for (let i = 0; i < 10_000; i++) {
        pulled++;
        yield { ord: i, data: Buffer.alloc(1000) };
      }
    }
    const it = binaryCopyChunks(COLUMNS, rows());
    it.next();
    expect(pulled).toBeGreaterThan(100);
    expect(pulled).toBeLessThan(2000);
  });

  it('refuses NUL and lone surrogates in text and jsonb, naming the row and column, instead of altering data', () => {
    expect(() => encode(COLUMNS, [{ ord: 0 }, { ord: 1, txt: 'a\0b' }])).toThrow(/row 1, column "txt" \(text\): .*NUL/);
    expect(() => encode(COLUMNS, [{ ord: 0, mood: 'x\0' }])).toThrow(/column "mood" \(enum\): .*NUL/);
    expect(() => encode(COLUMNS, [{ ord: 0, doc: { k: 'a\0' } }])).toThrow(/column "doc" \(jsonb\): .*NUL/);
    expect(() => encode(COLUMNS, [{ ord: 0, doc: { 'k\0': 1 } }])).toThrow(/column "doc" \(jsonb\): .*NUL/);
    const long = 'x'.repeat(100);
    expect(() => encode(COLUMNS, [{ ord: 0, txt: `${long}\0` }])).toThrow(/column "txt" \(text\): .*NUL/);
    for (const txt of ['a\ud800b', 'ab\ud83d', '\ude00ab', `${long}\ud800`, `\udc00${long}`]) {
      expect(() => encode(COLUMNS, [{ ord: 0, txt }])).toThrow(/column "txt" \(text\): .*surrogate/);
    }
    expect(() => encode(COLUMNS, [{ ord: 0, doc: ['\udc00'] }])).toThrow(/column "doc" \(jsonb\): .*surrogate/);
    // An escaped backslash before "u0000" is ordinary text, and a surrogate pair is fine.
    expect(() => encode(COLUMNS, [{ ord: 0, doc: ['\\u0000', '\\\\ud800', '😀'], txt: '😀' }])).not.toThrow();
  });

  it('writes text as exactly the UTF-8 of the string, or refuses it (randomized, short and long strings)', () => {
    const pool = ['a', 'Z', ' ', '~', '\u007f', '\u0080', 'é', 'ß', '\u07ff', '\u0800', '中', '\uffff', '😀', '\ud800', '\udfff', '\0'];
    const col: CopyColumn<string>[] = [{ name: 's', type: 'text', get: (r) => r }];
    let seed = 42;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % n;
    const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    for (let t = 0; t < 3000; t++) {
      let s = '';
      const len = rand(70);
      for (let k = 0; k < len; k++) s += pool[rand(t % 3 === 0 ? pool.length : pool.length - 3)];
      const valid = !s.includes('\0') && !loneSurrogate.test(s);
      if (!valid) {
        expect(() => [...binaryCopyChunks(col, [s])]).toThrow(/column "s" \(text\)/);
        continue;
      }
      const out = Buffer.concat([...binaryCopyChunks(col, [s])]);
      const bytes = Buffer.from(s, 'utf8');
      expect(out.readInt32BE(19 + 2)).toBe(bytes.length);
      expect(out.subarray(19 + 2 + 4, 19 + 2 + 4 + bytes.length).equals(bytes)).toBe(true);
      expect(out.length).toBe(19 + 2 + 4 + bytes.length + 2);
    }
  }, 60_000); // many random cases: seconds on a loaded machine; speed is the bench's

  it('refuses bad uuids without echoing them', () => {
    const bad = [
      'not-a-uuid',
      '0f8fad5b-d9cb-469f-a165-70867728950',
      '0f8fad5b-d9cb-469f-a165-70867728950e0',
      '0f8fad5bd9cb-469f-a165-70867728950e-',
      '0f8fad5b-d9cb-469f-a165-70867728950g',
      '{0f8fad5b-d9cb-469f-a165-70867728950}',
      '0f8fad5b-d9cb-469f-a165-70867728950\u0130',
      42,
      Buffer.alloc(16),
    ];
    for (const id of bad) {
      expect(() => encode(COLUMNS, [{ ord: 0, id: id as string }])).toThrow(/row 0, column "id" \(uuid\): expected a canonical uuid/);
    }
    try {
      encode(COLUMNS, [{ ord: 0, id: 'secret-token-value' }]);
    } catch (err) {
      expect((err as Error).message).not.toContain('secret');
    }
  });

  it('refuses values that do not fit the column type', () => {
    const cases: [Row, RegExp][] = [
      [{ ord: 1.5 }, /"ord" \(int4\): expected an integer in int4 range, got number 1.5/],
      [{ ord: 2 ** 31 }, /"ord" \(int4\)/],
      [{ ord: 0, small: 32768 }, /"small" \(int2\)/],
      [{ ord: 0, num: '1' as unknown as number }, /"num" \(int4\)/],
      [{ ord: 0, big: 2 ** 53 }, /"big" \(int8\): expected a safe integer/],
      [{ ord: 0, big: 2n ** 63n }, /"big" \(int8\): value is out of int8 range/],
      [{ ord: 0, big: '12abc' }, /"big" \(int8\)/],
      [{ ord: 0, flag: 1 as unknown as boolean }, /"flag" \(bool\)/],
      [{ ord: 0, txt: 5 as unknown as string }, /"txt" \(text\): expected a string/],
      [{ ord: 0, data: 'abc' as unknown as Buffer }, /"data" \(bytea\)/],
      [{ ord: 0, at: new Date(NaN) }, /"at" \(timestamptz\)/],
      [{ ord: 0, at: '2024-01-02T03:04:05' }, /"at" \(timestamptz\): expected an ISO 8601 timestamp with a zone/],
      [{ ord: 0, at: '2024-02-30T00:00:00Z' }, /"at" \(timestamptz\)/],
      [{ ord: 0, at: '2024-01-02T03:04:05.1234567Z' }, /"at" \(timestamptz\)/],
      [{ ord: 0, at: 1_700_000_000_000 as unknown as Date }, /"at" \(timestamptz\)/],
      [{ ord: 0, doc: { n: 1n } }, /"doc" \(jsonb\): value is not JSON-serializable/],
      [{ ord: 0, doc: () => 1 }, /"doc" \(jsonb\): value is not JSON-serializable/],
    ];
    for (const [row, msg] of cases) expect(() => encode(COLUMNS, [row])).toThrow(msg);
    expect(() => encode([{ name: 'x', type: 'money' as 'text', get: () => 1 }], [])).toThrow(/unknown type money/);
  });

  it('accepts leap days and far-past ISO strings exactly', async () => {
    await copyRows([
      { ord: 9000, at: '2024-02-29T12:00:00.000001Z' },
      { ord: 9001, at: '0004-02-29T00:00:00Z' },
    ]);
    const back = await readBack(9000, 9002);
    expect(back[0]!.us).toBe((BigInt(Date.parse('2024-02-29T12:00:00Z')) * 1000n + 1n).toString());
    expect(back[1]!.us).toBe((BigInt(Date.parse('0004-02-29T00:00:00Z')) * 1000n).toString());
  });
});
