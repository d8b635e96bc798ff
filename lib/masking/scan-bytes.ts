// The detectors over a whole payload of any size, streaming: read as latin1 (every detector looks
// for ASCII, which UTF-8 keeps as it is), one window at a time, so a 10 MiB payload never becomes one
// 10 MiB string; windows overlap by more than any detected value is long.
import { containsSensitive } from './detectors';

const SCAN_CHARS = 1024 * 1024;
const SCAN_OVERLAP = 400;
const JSON_ESCAPE = /\\u[0-9a-fA-F]{4}/;

/**
 * 'found': a detector matched; 'escaped': the text holds a JSON escape (`\u0040` for "@") that could
 * hide a value from a scan of the text, so only a parse can tell; 'clear': nothing.
 */
export function scanBytes(payload: Uint8Array): 'found' | 'escaped' | 'clear' {
  const buf = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  let escaped = false;
  for (let start = 0; start < buf.byteLength; start += SCAN_CHARS - SCAN_OVERLAP) {
    const window = buf.toString('latin1', start, Math.min(buf.byteLength, start + SCAN_CHARS));
    if (containsSensitive(window)) return 'found';
    // A real JSON escape is \u and four hex digits: random bytes of a binary payload hold "\u" about
    // once in 64 KiB, which alone would hide every large binary payload.
    escaped ||= JSON_ESCAPE.test(window);
    if (start + SCAN_CHARS >= buf.byteLength) break;
  }
  return escaped ? 'escaped' : 'clear';
}
