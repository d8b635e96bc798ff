// The payload viewer's model: text, pretty JSON and hex of any bytes, never failing (invalid UTF-8,
// empty, binary, megabytes, 10,000-deep JSON). Pure functions; the page renders the strings as React
// text, so nothing in a payload is ever markup.
import { jsonDepthWithin } from '@/lib/masking';

/** Deeper JSON is shown as text: parsing and printing it would risk the server's or browser's stack. */
export const MAX_JSON_DEPTH = 64;
export const MAX_PRETTY_BYTES = 1024 * 1024;
export const TEXT_VIEW_BYTES = 256 * 1024;
export const HEX_VIEW_BYTES = 16 * 1024;

export type PayloadMode = 'json' | 'text' | 'hex';

export interface PayloadView {
  size: number;
  /** Valid UTF-8 throughout (an empty payload is). */
  utf8: boolean;
  bom: boolean;
  /** Up to TEXT_VIEW_BYTES decoded (invalid sequences as U+FFFD), control characters made visible. */
  text: string;
  textTruncated: boolean;
  /** Re-indented JSON with every literal as sent; null when the payload is not JSON or is skipped. */
  json: string | null;
  /** Why JSON that might be valid was not formatted (too large, too deep). */
  jsonNote: string | null;
  hex: string;
  hexTruncated: boolean;
  /** The view to open with. */
  mode: PayloadMode;
}

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Re-indent valid JSON without parsing its values, so big numbers, escapes and key order show exactly
 * as sent (JSON.parse + stringify would round 12345678901234567890). Iterative: depth costs no stack.
 */
export function prettyJson(text: string): string {
  const out: string[] = [];
  let indent = 0;
  const pad = () => `\n${'  '.repeat(indent)}`;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out.push(text.slice(i, j + 1));
      i = j;
    } else if (c === '{' || c === '[') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      if (text[j] === (c === '{' ? '}' : ']')) {
        out.push(c === '{' ? '{}' : '[]');
        i = j;
      } else {
        indent++;
        out.push(c, pad());
      }
    } else if (c === '}' || c === ']') {
      indent--;
      out.push(pad(), c);
    } else if (c === ',') out.push(',', pad());
    else if (c === ':') out.push(': ');
    else if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') out.push(c);
  }
  return out.join('');
}

/** C0 controls and DEL as their visible Unicode pictures (␀, ␛ …); tab and line breaks stay. */
export function visibleControls(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters made visible
  return s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, (c) => (c === '\u007f' ? '\u2421' : String.fromCharCode(0x2400 + c.charCodeAt(0))));
}

/** Classic hex dump: offset, 16 bytes, printable ASCII. */
export function hexDump(bytes: Uint8Array, limit = HEX_VIEW_BYTES): string {
  const n = Math.min(bytes.byteLength, limit);
  const lines: string[] = [];
  for (let off = 0; off < n; off += 16) {
    const row = bytes.subarray(off, Math.min(off + 16, n));
    let hex = '';
    let ascii = '';
    for (let i = 0; i < 16; i++) {
      const b = row[i];
      hex += (b === undefined ? '  ' : b.toString(16).padStart(2, '0')) + (i === 7 ? '  ' : ' ');
      if (b !== undefined) ascii += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.';
    }
    lines.push(`${off.toString(16).padStart(8, '0')}  ${hex} |${ascii}|`);
  }
  return lines.join('\n');
}

export function viewPayload(bytes: Uint8Array): PayloadView {
  const size = bytes.byteLength;
  const bom = size >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  let utf8 = true;
  let full: string | null = null;
  try {
    full = fatal.decode(bytes);
  } catch {
    utf8 = false;
  }
  const textTruncated = size > TEXT_VIEW_BYTES;
  const shown = full !== null && !textTruncated ? full : lenient.decode(bytes.subarray(0, TEXT_VIEW_BYTES));
  let json: string | null = null;
  let jsonNote: string | null = null;
  const body = full !== null && bom ? full.slice(1) : full;
  const jsonLike = body !== null && /^\s*[[{]/.test(body);
  if (jsonLike && size > MAX_PRETTY_BYTES) jsonNote = `Not formatted as JSON: over ${MAX_PRETTY_BYTES / 1024} KiB. Shown as text.`;
  else if (jsonLike && !jsonDepthWithin(body, MAX_JSON_DEPTH)) jsonNote = `Not formatted as JSON: nested deeper than ${MAX_JSON_DEPTH} levels. Shown as text.`;
  else if (body !== null && size > 0 && size <= MAX_PRETTY_BYTES) {
    try {
      JSON.parse(body);
      json = prettyJson(body);
    } catch {
      // not JSON: the text view it is
    }
  }
  return {
    size,
    utf8,
    bom,
    text: visibleControls(shown),
    textTruncated,
    json,
    jsonNote,
    hex: hexDump(bytes),
    hexTruncated: size > HEX_VIEW_BYTES,
    mode: json !== null ? 'json' : utf8 ? 'text' : 'hex',
  };
}
