// Text that enters Triage must be text Postgres stores as it was sent: no unpaired UTF-16 surrogate
// (UTF-8 cannot encode one; it would be stored as U+FFFD) and no NUL (text and jsonb refuse it).
// Checked once at each door (JSON bodies, query strings, path params, forms), so that a value hashed
// into the audit trail is the value read back from it. Other control characters are stored exactly.
import { unprocessable } from './errors';

const UNPAIRED = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored as it is, or undefined when it can. */
export function textProblem(s: string): string | undefined {
  const nul = s.indexOf('\u0000');
  if (nul >= 0) return `holds a NUL character (U+0000) at position ${nul + 1}`;
  const m = UNPAIRED.exec(s);
  if (m) return `holds an unpaired surrogate (U+${m[0].charCodeAt(0).toString(16).toUpperCase()}) at position ${m.index + 1}, which is not text`;
  return undefined;
}

const fieldName = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;

/**
 * Refuse (422, naming the field as the caller sent it) any string or object key in `value` that
 * Postgres would not store as sent. `where` says which part of the request it came from.
 */
export function assertStorableText(value: unknown, where: 'body' | 'query' | 'path' | 'form', path = ''): void {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem) {
      const field = path || where;
      throw unprocessable(`${field} ${problem}`, { issues: [{ path: field, message: `not storable text: ${problem}` }], where });
    }
    return;
  }
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) assertStorableText(v, where, fieldName(path, i));
    return;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const keyProblem = textProblem(k);
      if (keyProblem) {
        const at = path || where;
        throw unprocessable(`A key in ${at} ${keyProblem}`, { issues: [{ path: at, message: `a key is not storable text: ${keyProblem}` }], where });
      }
      assertStorableText(v, where, fieldName(path, k));
    }
  }
}
