// Ingest API throughput (target ≥ 10,000 dead letters/s and ≥ 0.4× raw COPY): batches of 500 dead
// letters with 1 KiB JSON payloads, POSTed to the route handler of /api/v1/sources/{source}/dead-letters
// in process (a Request with the ingest token, as Next calls it: token check, body read, JSON parse,
// validation, base64, SHA-256, fingerprint, COPY into the temp table, INSERT … ON CONFLICT, cluster
// counts), two batches in flight. Baseline: one raw COPY of the same rows straight into dead_letters,
// everything precomputed. Each run starts from empty tables. The payloads are order-like JSON (words,
// ids, amounts): the trigram index on payload_text is most of the cost of either path, so both are
// measured again without it, for information. Runs in a child process with its own database.
//   npx tsx test/bench/run.ts ingest
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BenchResult } from './run';
import { runBenchChild } from './support';

const CHILD_FLAG = '--ingest-bench-child';
const BATCH = 500;
const BATCHES = 40;
const IN_FLIGHT = 2;
const PAYLOAD_BYTES = 1024;

const ERRORS = Array.from({ length: 20 }, (_, k) => ({ type: `Error${k}`, message: (i: number) => `failed to apply step ${k} to order ${i}: upstream answered ${500 + (i % 4)}` }));

const WORDS = ('gift wrap express standard parcel locker street avenue road city north south east west garden house blue red green small large ' +
  'medium cotton shirt shoes socks coffee beans grinder kettle lamp desk chair table book pen paper card voucher refund return exchange ' +
  'warehouse berlin paris madrid lisbon vienna prague warsaw oslo dublin rome amsterdam brussels zurich tallinn riga vilnius').split(' ');

/** An order-like JSON payload of exactly PAYLOAD_BYTES bytes, different for every i. */
function payload(i: number): Buffer {
  const h = createHash('sha256').update(String(i)).digest();
  const word = (k: number) => WORDS[h[k % 32]! % WORDS.length]!;
  const items = Array.from({ length: 6 }, (_, k) => `{"sku":"sku-${(i * 7 + k) % 9973}","name":"${word(k)} ${word(k + 6)}","qty":${(h[k]! % 5) + 1},"price":${h[k + 8]! * 13}}`);
  const head = `{"order":${i},"customer":{"id":"c-${i % 50_000}","name":"${word(20)} ${word(21)}","city":"${word(22)}"},"items":[${items.join(',')}],"note":"`;
  let note = '';
  for (let k = 23; note.length < PAYLOAD_BYTES; k++) note += `${word(k)} `;
  return Buffer.from(head + note.slice(0, PAYLOAD_BYTES - head.length - 2) + '"}');
}

interface Round {
  api: number;
  copy: number;
  payloadTrigram: boolean;
}

async function child(): Promise<void> {
  const { sql, closeDb } = await import('@/lib/db');
  const { SYSTEM } = await import('@/lib/auth');
  const { createTeam } = await import('@/lib/admin/teams');
  const { createIngestToken } = await import('@/lib/admin/tokens');
  const { createSource } = await import('@/lib/sources/create-source');
  const { closeIngestSql } = await import('@/lib/ingest/ingest-sql');
  const { payloadText, sha256Hex } = await import('@/lib/deadletters/record-dead-letters');
  const { fingerprint } = await import('@/lib/clustering');
  const { POST } = await import('@/app/api/v1/sources/[source]/dead-letters/route');
  const pg = sql();

  await createTeam(SYSTEM, { name: 'commerce' });
  const source = await createSource(SYSTEM, { name: 'orders', team: 'commerce', kind: 'ingest' });
  const { token } = await createIngestToken(SYSTEM, 'orders');
  const total = BATCH * BATCHES;
  const now = Date.now();
  const rows = Array.from({ length: total }, (_, i) => {
    const e = ERRORS[i % ERRORS.length]!;
    return { messageId: `msg-${i}`, payload: payload(i), errorType: e.type, errorMessage: e.message(i), deadAt: new Date(now - (total - i) * 10) };
  });
  const bodies = Array.from({ length: BATCHES }, (_, b) =>
    JSON.stringify({
      deadLetters: rows.slice(b * BATCH, (b + 1) * BATCH).map((r) => ({
        messageId: r.messageId,
        payload: r.payload.toString('base64'),
        contentType: 'application/json',
        headers: { 'x-tenant': 'acme' },
        reason: 'MaxReceives',
        error: { type: r.errorType, message: r.errorMessage },
        receiveCount: 3,
        deadAt: r.deadAt.toISOString(),
      })),
    }),
  );
  // The baseline's rows as the write path would store them, computed before the clock starts.
  const esc = (s: string) => s.replace(/[\\\n\r\t]/g, (c) => ({ '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c]!);
  const expires = new Date(now + 14 * 86_400_000).toISOString();
  const copyText = rows.map((r) => {
    const history = JSON.stringify([{ reason: 'MaxReceives', errorType: r.errorType, errorMessage: r.errorMessage, count: 1, firstAt: r.deadAt, lastAt: r.deadAt }]);
    const fp = fingerprint({ type: r.errorType, message: r.errorMessage }).key;
    return [source.id, r.messageId, 'MaxReceives', r.errorType, esc(r.errorMessage), 3, r.deadAt.toISOString(), `\\\\x${r.payload.toString('hex')}`, r.payload.byteLength,
      sha256Hex(r.payload), 'application/json', esc(payloadText(r.payload)!), '{"x-tenant":"acme"}', esc(history), fp, 'open', expires].join('\t') + '\n';
  });
  const chunks = Array.from({ length: Math.ceil(copyText.length / 1000) }, (_, k) => copyText.slice(k * 1000, (k + 1) * 1000).join(''));

  const empty = () => pg`TRUNCATE dead_letters, cluster_hours, cluster_sources, clusters CASCADE`;
  const apiRun = async () => {
    let next = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let b = next++; b < BATCHES; b = next++) {
          const res = await POST(
            new Request('http://bench.local/api/v1/sources/orders/dead-letters', {
              method: 'POST',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: bodies[b],
            }),
            { params: Promise.resolve({ source: 'orders' }) },
          );
          if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
          await res.arrayBuffer();
        }
      }),
    );
    return total / ((performance.now() - t) / 1000);
  };
  const copyRun = async () => {
    const t = performance.now();
    const columns = `source_id, message_id, reason, error_type, error_message, receive_count, dead_at, payload, payload_size, payload_sha256,
      content_type, payload_text, headers, failure_history, fingerprint, status, expires_at`;
    await pipeline(Readable.from(chunks), await pg.unsafe(`COPY dead_letters (${columns}) FROM STDIN`).writable());
    return total / ((performance.now() - t) / 1000);
  };

  const rounds: Round[] = [];
  for (const payloadTrigram of [true, false]) {
    if (!payloadTrigram) await pg`DROP INDEX dead_letters_payload_text_trgm_idx`;
    await empty();
    const copy = await copyRun();
    await empty();
    const api = await apiRun();
    const [{ n }] = (await pg`SELECT count(*)::int AS n FROM dead_letters`) as unknown as [{ n: number }];
    if (n !== total) throw new Error(`expected ${total} dead letters, found ${n}`);
    rounds.push({ api, copy, payloadTrigram });
    process.stderr.write(`[ingest bench] payload trigram index ${payloadTrigram ? 'on' : 'off'}: API ${api.toFixed(0)}/s, COPY ${copy.toFixed(0)}/s\n`);
  }
  await closeIngestSql();
  await closeDb();
  process.stdout.write(`${JSON.stringify(rounds)}\n`);
}

export async function run(): Promise<BenchResult[]> {
  const [full, lean] = await runBenchChild<[Round, Round]>('ingest', import.meta.url, CHILD_FLAG, { timeoutMs: 300_000 });
  const name = `ingest API, ${BATCH * BATCHES} dead letters in batches of ${BATCH} × ${PAYLOAD_BYTES} B JSON, ${IN_FLIGHT} in flight (route handler in process)`;
  return [
    {
      name,
      value: Math.round(full.api),
      unit: 'dead letters/s',
      baseline: { name: 'raw COPY of the same rows', value: Math.round(full.copy) },
      target: '≥ 0.4× raw COPY and ≥ 10,000/s',
      met: full.api >= 0.4 * full.copy && full.api >= 10_000,
    },
    {
      name: `${name}, without the payload_text trigram index (information)`,
      value: Math.round(lean.api),
      unit: 'dead letters/s',
      baseline: { name: 'raw COPY of the same rows, same index set', value: Math.round(lean.copy) },
    },
  ];
}

if (process.argv.includes(CHILD_FLAG)) {
  child().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
