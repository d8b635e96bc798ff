// A POST to a checked outbound target (outbound-url.ts): the connection goes to the address the
// check resolved, never to a second lookup of the name (DNS rebinding), and at most
// MAX_RESPONSE_BYTES of the receiver's answer are read (only its status matters to Triage).
// node:http rather than fetch: its `lookup` option pins the address and it follows no redirect
// (a redirect could send a signed body somewhere nobody configured).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { OutboundTarget } from './outbound-url';

export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface OutboundPost {
  headers: Record<string, string>;
  body: Uint8Array | string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export class OutboundTimeout extends Error {
  constructor(ms: number) {
    super(`timeout after ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

/** POST to `target`; resolves with the status once the answer's head (and at most 64 KiB of it) arrived. */
export function postOutbound(target: OutboundTarget, post: OutboundPost): Promise<{ status: number }> {
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const timeout = AbortSignal.timeout(post.timeoutMs);
  const signal = post.signal ? AbortSignal.any([post.signal, timeout]) : timeout;
  const request = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request({
      protocol: target.url.protocol,
      host: target.host,
      port: target.url.port || undefined,
      path: `${target.url.pathname}${target.url.search}`,
      method: 'POST',
      headers: { ...post.headers, 'content-length': String(Buffer.byteLength(post.body)) },
      // `host` stays the URL's name: TLS sends it as the server name and checks the certificate against it.
      lookup: pinned,
      signal,
      agent: false,
    });
    req.on('error', (err) => reject(timeout.aborted ? new OutboundTimeout(post.timeoutMs) : err));
    req.on('response', (res: IncomingMessage) => {
      let read = 0;
      const done = () => {
        resolve({ status: res.statusCode ?? 0 });
        res.destroy();
      };
      res.on('data', (c: Buffer) => {
        read += c.byteLength;
        if (read >= MAX_RESPONSE_BYTES) done();
      });
      res.on('end', done);
      res.on('error', done); // the status is known; an answer cut short changes nothing
    });
    req.end(post.body);
  });
}
