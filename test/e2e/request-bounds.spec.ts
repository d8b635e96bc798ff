// Bounds on what a client can make the served app hold or record, over real HTTP against the built
// app (`npm start`): a JSON body sent without Content-Length is refused once it passes its limit,
// not buffered whole first; a dead letter dated in the future is refused, since its expiry and age
// would count from then.
import { request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { createIngestToken } from '@/lib/admin/tokens';
import { SYSTEM } from '@/lib/auth';
import { closeDb } from '@/lib/db';
import { loadFixtures, newSource, type FixtureSource, type Fixtures } from '../security/fixtures';

const PORT = Number(process.env.E2E_PORT ?? 3100);
const baseURL = `http://127.0.0.1:${PORT}`;
const RUN = randomBytes(4).toString('hex');
const MiB = 1024 * 1024;

let fx: Fixtures;
test.beforeAll(async () => {
  fx = await loadFixtures();
});
test.afterAll(closeDb);

interface ChunkedResult {
  status: number;
  body: string;
  /** Body bytes the client had written when the answer arrived. */
  sentBeforeAnswer: number;
}

/**
 * POST a JSON body with Transfer-Encoding: chunked (no Content-Length), writing 64 KiB chunks as the
 * socket takes them until the server answers or `maxBytes` went out: a client that never says how
 * much it will send.
 */
function postChunked(path: string, token: string, maxBytes: number): Promise<ChunkedResult> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = httpRequest({
      host: '127.0.0.1',
      port: PORT,
      path,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      answered = true;
      const sentBeforeAnswer = sent;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8'), sentBeforeAnswer });
        req.destroy();
      });
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    req.write('{"url":"http://127.0.0.1:9/hook","team":"commerce","pad":"');
    const pump = () => {
      while (!answered && sent < maxBytes) {
        sent += chunk.byteLength;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end('"}');
    };
    pump();
  });
}

test.describe('a JSON body without Content-Length', () => {
  test('is refused with 413 once it passes the limit, before the client has sent it all', async () => {
    // POST /api/v1/webhooks reads at most 16 KiB; the client offers 256 MiB.
    const r = await postChunked('/api/v1/webhooks', fx.users['admin@triage.local']!.token, 256 * MiB);
    expect(r.status).toBe(413);
    expect(r.body).toMatch(/over 16384 bytes/);
    // The answer came while the client was still sending: the server stopped reading at the limit.
    expect(r.sentBeforeAnswer).toBeLessThan(32 * MiB);
  });
});

test.describe('ingest: a dead letter dated in the future', () => {
  let source: FixtureSource;
  let token: string;
  test.beforeAll(async () => {
    source = await newSource(fx.sources.orders);
    ({ token } = await createIngestToken({ ...SYSTEM, label: 'request-bounds' }, source.name));
  });

  const batch = (deadAt: string) => ({
    deadLetters: [{ messageId: `future-${RUN}-${randomBytes(4).toString('hex')}`, payload: Buffer.from('{"order":1}').toString('base64'), deadAt }],
  });

  test('a deadAt days ahead is 422 naming the field, and nothing is written', async ({ request }) => {
    const ahead = new Date(Date.now() + 30 * 86400_000).toISOString();
    const r = await request.post(`${baseURL}/api/v1/sources/${source.name}/dead-letters`, {
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      data: batch(ahead),
    });
    expect(r.status()).toBe(422);
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/deadLetters\[0\]\.deadAt: .*future/);
    const list = await request.get(`${baseURL}/api/v1/sources/${source.name}/dead-letters`, {
      headers: { authorization: `Bearer ${fx.users['admin@triage.local']!.token}` },
    });
    expect(((await list.json()) as { deadLetters: unknown[] }).deadLetters).toHaveLength(0);
  });

  test('the raw endpoint refuses a Triage-Dead-At ahead too, naming the header', async ({ request }) => {
    const r = await request.post(`${baseURL}/api/v1/sources/${source.name}/dead-letters/raw`, {
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'triage-message-id': `future-raw-${RUN}`,
        'triage-dead-at': new Date(Date.now() + 3600_000).toISOString(),
      },
      data: '{"order":2}',
    });
    expect(r.status()).toBe(422);
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/Triage-Dead-At: .*future/);
  });

  test("a deadAt a minute ahead (a sender's clock a little fast) is accepted", async ({ request }) => {
    const r = await request.post(`${baseURL}/api/v1/sources/${source.name}/dead-letters`, {
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      data: batch(new Date(Date.now() + 60_000).toISOString()),
    });
    expect(r.status()).toBe(200);
  });
});
