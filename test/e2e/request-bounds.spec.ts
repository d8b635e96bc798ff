// Bounds on what a client can make the served app hold, over real HTTP against the built app
// (`npm start`): a JSON body sent without Content-Length is refused once it passes its limit, not
// buffered whole first (issue 15).
import { request as httpRequest } from 'node:http';
import { expect, test } from '@playwright/test';
import { closeDb } from '@/lib/db';
import { loadFixtures, type Fixtures } from '../security/fixtures';

const PORT = Number(process.env.E2E_PORT ?? 3100);
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
    const req = httpRequest({ host: '127.0.0.1', port: PORT, path, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
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
