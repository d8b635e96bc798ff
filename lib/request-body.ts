// Request bodies for route handlers, read as a stream with a byte cap: an oversized body is refused
// as soon as it passes the cap (or at once, from Content-Length), never buffered whole first; the
// content type checked and clear errors.
import { AppError } from '@/lib/errors';
import { assertStorableText } from '@/lib/text-input';

function tooLarge(maxBytes: number, what: string): AppError {
  return new AppError('payload_too_large', `${what} is over ${maxBytes} bytes`, { limit: maxBytes });
}

function declaredTooLarge(req: Request, maxBytes: number): boolean {
  const declared = req.headers.get('content-length');
  return declared !== null && /^\d+$/.test(declared) && Number(declared) > maxBytes;
}

async function* chunks(req: Request, maxBytes: number, what: string): AsyncGenerator<Uint8Array> {
  if (declaredTooLarge(req, maxBytes)) throw tooLarge(maxBytes, what);
  if (!req.body) return;
  const reader = req.body.getReader();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      total += value.byteLength;
      if (total > maxBytes) throw tooLarge(maxBytes, what);
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => undefined); // the client may already be gone; nothing to do then
  }
}

/** The whole body, at most `maxBytes`. */
export async function readCapped(req: Request, maxBytes: number, what = 'The body'): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const c of chunks(req, maxBytes, what)) {
    parts.push(c);
    total += c.byteLength;
  }
  return Buffer.concat(parts, total);
}

/** The body's lines (LF or CRLF), as they arrive, with their 1-based numbers; at most `maxBytes` in all. */
export async function* readLines(req: Request, maxBytes: number, what = 'The body'): AsyncGenerator<{ line: Buffer; number: number }> {
  let pending: Buffer[] = [];
  let number = 0;
  const line = (parts: Buffer[]) => {
    const b = Buffer.concat(parts);
    return b.byteLength && b[b.byteLength - 1] === 0x0d ? b.subarray(0, -1) : b;
  };
  for await (const c of chunks(req, maxBytes, what)) {
    const chunk = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      pending.push(chunk.subarray(start, nl));
      yield { line: line(pending), number: ++number };
      pending = [];
      start = nl + 1;
    }
    if (start < chunk.byteLength) pending.push(chunk.subarray(start));
  }
  if (pending.length) yield { line: line(pending), number: ++number };
}

/** A command's body ({ reason? }: pause, resume, cancel, approve): optional (an empty POST is fine), small. */
export const COMMAND_MAX_BYTES = 16 << 10;

/**
 * The JSON body, at most `maxBytes`: read as a stream and refused (413) as soon as it passes the
 * limit, whether or not the client said how long it is (chunked bodies have no Content-Length).
 */
export async function readJsonBody(req: Request, maxBytes = 1 << 20): Promise<unknown> {
  const type = req.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) throw new AppError('unsupported_media_type', 'Send application/json');
  const bytes = await readCapped(req, maxBytes, 'Body');
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new AppError('bad_request', 'Body is not valid JSON');
  }
  // JSON's \ud800 escape and \u0000 parse, but Postgres would not store them as sent (422).
  assertStorableText(body, 'body');
  return body;
}
