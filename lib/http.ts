// Request-body helpers for route handlers: content type checked, size bounded, clear errors.
import { AppError } from './errors';

export async function readJsonBody(req: Request, maxBytes = 1 << 20): Promise<unknown> {
  const type = req.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) throw new AppError('unsupported_media_type', 'Send application/json');
  const len = Number(req.headers.get('content-length') ?? 0);
  if (len > maxBytes) throw new AppError('payload_too_large', `Body over ${maxBytes} bytes`);
  const text = await req.text();
  if (Buffer.byteLength(text) > maxBytes) throw new AppError('payload_too_large', `Body over ${maxBytes} bytes`);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('bad_request', 'Body is not valid JSON');
  }
}
