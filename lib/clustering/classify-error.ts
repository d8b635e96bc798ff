// One dead letter's error class, pure: from its type, its message and the broker's reason, read in
// that order of trust. A type named in a runtime's table decides (it is the most specific thing an
// error says); then an HTTP status the message reports; then the words of the message, transient
// ones first (a gateway's "503 Service Unavailable" page parsed as JSON is still an outage); then the
// broker's reason. Nothing matched: unknown. Decided once, at write time, for every reader.
import { ERROR_RULES, HTTP_PERMANENT_STATUS, HTTP_TRANSIENT_STATUS, REASON_CLASSES, type ErrorClass, type ErrorRule } from '@/lib/model/error-classes';

export interface ClassifiedError {
  class: ErrorClass;
  /** The table entry that decided (`http.transient`, `reason.Expired`…), null when unknown. */
  rule: string | null;
}

export interface ErrorToClassify {
  type?: string | null;
  message?: string | null;
  reason?: string | null;
}

const RULES: readonly ErrorRule[] = Object.values(ERROR_RULES).flat();
const TYPE_RULES = new Map<string, ErrorRule>();
for (const r of RULES) for (const t of r.types ?? []) if (!TYPE_RULES.has(t.toLowerCase())) TYPE_RULES.set(t.toLowerCase(), r);
const MESSAGE_RULES = [...RULES.filter((r) => r.message && r.class === 'transient'), ...RULES.filter((r) => r.message && r.class === 'permanent')];

/** `java.net.ConnectException`, `Net::ReadTimeout`, `GuzzleHttp\Exception\ConnectException`, `Foo$NotFound`: the last segment. */
export function typeName(type: string): string {
  const parts = type
    .trim()
    .split(/::|[.\\/$]/)
    .filter(Boolean);
  return (parts.at(-1) ?? '').toLowerCase();
}

export function matchesType(rule: ErrorRule, type: string | null | undefined): boolean {
  if (!type || !rule.types) return false;
  const name = typeName(type);
  return rule.types.some((t) => t.toLowerCase() === name);
}

// A number is a status only where the message says so: after HTTP/status/code or a verb of replying,
// or before a status's reason phrase. "order 503 not found" is not an HTTP 503.
const STATUS_BEFORE =
  /\b(?:http(?:\/\d(?:\.\d)?)?|status(?:[ _]?code)?|code|response|responded(?: with)?|returned|answered|replied(?: with)?|received|got)\s*[:=#]?\s*\(?(\d{3})\b/gi;
const STATUS_PHRASE =
  /\b(\d{3})\s*[-:(]?\s*(?:service unavailable|bad gateway|gateway time-?out|internal server error|server error|too many requests|request time-?out|insufficient storage|bad request|not found|conflict|gone|payload too large|unsupported media type|unprocessable (?:entity|content))\b/gi;

/** The HTTP statuses a message reports. */
export function httpStatuses(message: string): string[] {
  const out: string[] = [];
  for (const re of [STATUS_BEFORE, STATUS_PHRASE]) for (const m of message.matchAll(re)) out.push(m[1]!);
  return out;
}

export function classifyError(e: ErrorToClassify): ClassifiedError {
  const byType = e.type ? TYPE_RULES.get(typeName(e.type)) : undefined;
  if (byType) return { class: byType.class, rule: byType.name };
  const message = e.message ?? '';
  // The type line of a stack often leads the message (`TimeoutError: …`), so both are read.
  const text = e.type ? `${e.type}: ${message}` : message;
  const statuses = httpStatuses(text);
  if (statuses.some((s) => HTTP_TRANSIENT_STATUS.test(s))) return { class: 'transient', rule: 'http.transient' };
  if (statuses.some((s) => HTTP_PERMANENT_STATUS.test(s))) return { class: 'permanent', rule: 'http.permanent' };
  for (const r of MESSAGE_RULES) if (r.message!.test(text)) return { class: r.class, rule: r.name };
  const byReason = e.reason ? REASON_CLASSES[e.reason] : undefined;
  if (byReason) return { class: byReason, rule: `reason.${e.reason}` };
  return { class: 'unknown', rule: null };
}
