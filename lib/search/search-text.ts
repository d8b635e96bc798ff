// What of a dead letter is searchable, computed by the search indexer (never on the ingest path).
/** Payload search covers this head of each payload (the list says so next to a search). */
export const PAYLOAD_TEXT_CHARS = 4_096;
/** Bytes read per payload: enough for PAYLOAD_TEXT_CHARS characters of up to four bytes each. */
export const PAYLOAD_HEAD_BYTES = PAYLOAD_TEXT_CHARS * 4;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The first `maxChars` characters of a payload (or of its first bytes, `truncated`), or null when
 * it is not valid UTF-8. NUL is dropped: Postgres text cannot hold it.
 */
export function payloadText(head: Uint8Array, opts: { truncated?: boolean; maxChars?: number } = {}): string | null {
  const maxChars = opts.maxChars ?? PAYLOAD_TEXT_CHARS;
  // Cut at a character boundary, so a character straddling the window is not "invalid UTF-8".
  let end = Math.min(head.byteLength, maxChars * 4);
  if (end < head.byteLength) while (end > 0 && (head[end]! & 0xc0) === 0x80) end--;
  else if (opts.truncated) end = withoutCutTail(head, end);
  try {
    return utf8.decode(head.subarray(0, end)).slice(0, maxChars).replaceAll('\u0000', '');
  } catch {
    return null;
  }
}

/** `end`, or the start of the last character when the bytes were cut inside it. */
function withoutCutTail(bytes: Uint8Array, end: number): number {
  let i = end - 1;
  while (i > 0 && end - i < 4 && (bytes[i]! & 0xc0) === 0x80) i--;
  const lead = bytes[i] ?? 0;
  const width = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return end - i < width ? i : end;
}
