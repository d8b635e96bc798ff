// The one masking of a dead letter's text for readers without a reveal: headers (paths of values
// under the detectors, as payloads get), the error message, the stack and the failure history.
// Every reader applies it at the lib boundary (lib/deadletters get, list and export; lib/clustering
// samples and templates), so the API, exports, clusters and the page cannot disagree.
import { maskText } from './detectors';
import { maskJson } from './mask-json';

export interface DeadLetterText {
  headers?: unknown;
  errorMessage?: string | null;
  errorStack?: string | null;
  failureHistory?: readonly { errorMessage?: string | null }[];
}

const maskNullable = (s: string | null | undefined) => (s == null ? s : maskText(s));

/** A copy of `x` with e-mails, IBANs and card numbers masked in its headers, error text and failure history. */
export function maskDeadLetterText<T extends DeadLetterText>(x: T): T {
  const out = { ...x };
  if ('headers' in x) out.headers = maskJson(x.headers);
  if ('errorMessage' in x) out.errorMessage = maskNullable(x.errorMessage);
  if ('errorStack' in x) out.errorStack = maskNullable(x.errorStack);
  if (x.failureHistory) out.failureHistory = x.failureHistory.map((f) => ({ ...f, errorMessage: maskNullable(f.errorMessage) }));
  return out;
}

/** A cluster template or sample message: the same detectors. */
export const maskErrorText = maskNullable;

/**
 * The first `chars` characters of an error text, masked before the cut: a card number or an e-mail
 * cut in half is no longer what the detectors find. Callers read the whole text where the row's
 * stored text verdict is not clear (`headSql`).
 */
export function maskedHead(text: string | null, chars: number): string | null {
  if (text === null) return null;
  const masked = maskText(text);
  if (masked.length <= chars) return masked;
  const points = Array.from(masked);
  return points.length <= chars ? masked : points.slice(0, chars).join('');
}

/** SQL for an error column as `maskedHead` needs it: cut in Postgres only when the row's text verdict is clear. */
export const headSql = (column: string, verdict: string, chars: number) => `CASE WHEN ${verdict} IS FALSE THEN left(${column}, ${chars}) ELSE ${column} END`;
