// Request-body helpers for route handlers: content type checked, size bounded, clear errors.
import { AppError } from './errors';
import { readCapped } from './read-body';
import { assertStorableText } from './text-input';

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
