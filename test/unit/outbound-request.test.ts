// Outbound requests as an attacker would try them: a name that answers the check with one
// address and the connection with another (DNS rebinding), a receiver that answers with a body that
// never ends. The resolver is injected: the name is resolved once, by it, and the connection goes to
// the address it checked. The receivers are real HTTP servers on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { outgoingRedrive } from '../support/outgoing';
import type { OutboundPolicy } from '@/lib/outbound/outbound-url';
import { httpDestination } from '@/lib/redrive/destinations/http-destination';
import type { OutgoingRedrive } from '@/lib/redrive/destinations';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

const message = (n: number): OutgoingRedrive =>
  outgoingRedrive({ deadLetterId: BigInt(n), messageId: `m-${n}`, payload: Buffer.from(`{"n":${n}}`), contentType: 'application/json' });

describe('redrive over HTTP', () => {
  it('resolves the name once and connects to the address it checked, whatever the name says later', async () => {
    const received: string[] = [];
    const port = await listen((req, res) => {
      received.push(String(req.headers['triage-message-id']));
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    const asked: string[] = [];
    // The operator allowed this name; it answers the check with the receiver on loopback, then
    // (rebound) with the cloud metadata address. Only the first answer may be used.
    const policy: OutboundPolicy = {
      allowPrivate: false,
      allowedHosts: new Set(['receiver.rebind.test']),
      resolve: async (host) => {
        asked.push(host);
        return asked.length === 1 ? ['127.0.0.1'] : ['169.254.169.254'];
      },
    };
    const dest = httpDestination({ url: `http://receiver.rebind.test:${port}/redrive`, secret: null, timeoutMs: 3_000, policy });
    const results = await dest.deliver([message(1), message(2), message(3)], new AbortController().signal);
    expect(results).toEqual([1, 2, 3].map(() => ({ ok: true, acknowledged: true })));
    expect(received.sort()).toEqual(['m-1', 'm-2', 'm-3']);
    expect(asked).toEqual(['receiver.rebind.test']);
  });

  it('refuses a name that does not resolve, rather than letting the connection resolve it again', async () => {
    const policy: OutboundPolicy = { allowPrivate: false, allowedHosts: new Set(), resolve: async () => Promise.reject(new Error('ENOTFOUND')) };
    const dest = httpDestination({ url: 'http://nowhere.rebind.test/redrive', secret: null, policy });
    const [r] = await dest.deliver([message(1)], new AbortController().signal);
    expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/^refused: .*does not resolve/) });
  });

  it('reads a bounded part of what the receiver answers: an endless 200 is an acknowledgement, not a timeout', async () => {
    let written = 0;
    let closed = false;
    const port = await listen((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (!closed && written < 512 * 1024 * 1024) {
          written += chunk.byteLength;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (closed = true));
      pump();
    });
    const policy: OutboundPolicy = { allowPrivate: false, allowedHosts: new Set(['127.0.0.1']), resolve: async () => ['127.0.0.1'] };
    const dest = httpDestination({ url: `http://127.0.0.1:${port}/redrive`, secret: null, timeoutMs: 3_000, policy });
    const [r] = await dest.deliver([message(1)], new AbortController().signal);
    expect(r).toEqual({ ok: true, acknowledged: true });
    await expect.poll(() => closed).toBe(true);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });
});
