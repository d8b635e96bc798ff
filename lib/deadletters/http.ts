// HTTP shapes shared by the dead-letter route handlers: list query parsing and the payload download.
import { z } from 'zod';
import { filtersFromSearchParams, type DeadLetterFilters } from './filters';
import { MAX_PAGE_SIZE } from './list-dead-letters';

export function listQuery(url: URL): { filters: DeadLetterFilters; cursor: string | null; limit: number; withCount: boolean } {
  const limit = z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50).parse(url.searchParams.get('limit') ?? undefined);
  return {
    filters: filtersFromSearchParams(url.searchParams),
    cursor: url.searchParams.get('cursor'),
    limit,
    withCount: url.searchParams.get('count') === 'true',
  };
}

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
