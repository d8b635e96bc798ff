// HTTP shapes shared by the dead-letter route handlers: list and download query strings, the payload download.
import { z } from 'zod';
import { deadLetterFilters } from './filters';
import { MAX_PAGE_SIZE } from './list-dead-letters';

/** A list's query string: the filters, the keyset cursor, the page size; `count=true` adds a capped count. */
export const deadLetterListQuery = deadLetterFilters.extend({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  count: z.string().optional().transform((v) => v === 'true'),
  reveal: z.string().optional().describe('The id of your search reveal (POST /api/v1/dead-letters/search-reveal): text search then matches inside masked values too'),
});

/** A payload download's query string: the id of a reveal POSTed before, for a masked payload. */
export const revealQuery = z.object({ reveal: z.string().optional() });

// type/subtype with optional parameters, nothing else: anything odd is served as octet-stream.
const MEDIA_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;\s*[\w!#$&^.+-]+=("[^"\\\r\n]*"|[\w!#$&^.+-]+))*$/;

/**
 * The exact bytes as an attachment: the original Content-Type (so a client knows what it got), but
 * never rendered by a browser (attachment, nosniff, a sandboxing CSP), whatever the bytes contain.
 */
export function payloadResponse(id: bigint, bytes: Uint8Array, contentType: string | null, sha256: string, filename = `dead-letter-${id}.bin`): Response {
  const type = contentType && MEDIA_TYPE.test(contentType) ? contentType : 'application/octet-stream';
  return new Response(new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength), {
    status: 200,
    headers: {
      'Content-Type': type,
      'Content-Length': String(bytes.byteLength),
      'Content-Disposition': `attachment; filename="${filename}"`,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      // no-transform: the exact bytes, so no gzip on the way (which would drop the Content-Length).
      'Cache-Control': 'private, no-store, no-transform',
      'X-Payload-Sha256': sha256,
    },
  });
}

export function gone(message: string): Response {
  return Response.json({ error: { code: 'gone', message } }, { status: 410 });
}
