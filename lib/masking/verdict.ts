// The masking verdict of a dead letter, decided once at write time (lib/deadletters/record-dead-letters.ts)
// and recomputed when its source's sensitive paths change (./recompute-verdicts.ts): whether its payload,
// and whether its headers or error text, hold anything a role without payload.reveal may not see.
// Search, lists, the API, exports and the viewer read the stored verdict, so they agree.
import { containsSensitive } from './detectors';
import { maskPayload, MAX_MASK_BYTES, type MaskedPayload, type PayloadPolicy } from './mask-json';

/** Scanned in windows of this many characters, each overlapping the last by more than any detected value is long. */
const SCAN_CHARS = 1024 * 1024;
const SCAN_OVERLAP = 400;

/**
 * Whether the detectors find a value anywhere in these bytes, read as latin1 (every detector looks
 * for ASCII, which UTF-8 keeps as it is), one window at a time so a 10 MiB payload never becomes
 * one 10 MiB string. A JSON escape (`\u0040` for "@") could hide a value from a scan of the text:
 * a payload with one that is small enough is parsed and masked properly, a larger one counts as sensitive.
 */
export function bytesContainSensitive(payload: Uint8Array): boolean {
  const buf = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  for (let start = 0; start < buf.byteLength; start += SCAN_CHARS - SCAN_OVERLAP) {
    const window = buf.toString('latin1', start, Math.min(buf.byteLength, start + SCAN_CHARS));
    if (containsSensitive(window)) return true;
    if (window.includes('\\u')) return buf.byteLength > MAX_MASK_BYTES || maskPayload(payload, { paths: [] }).state !== 'clear';
    if (start + SCAN_CHARS >= buf.byteLength) break;
  }
  return false;
}

/** Whether a payload is masked for roles without reveal: its flag, its source's paths, then the detectors over all of it. */
export function payloadVerdict(payload: Uint8Array, policy: PayloadPolicy): boolean {
  if (policy.sensitive) return true;
  if (policy.paths.length > 0) return maskPayload(payload, policy).state !== 'clear';
  return bytesContainSensitive(payload);
}

/** Whether headers, the error message, the stack or the failure history (as JSON text) hold a detected value. */
export function textVerdict(parts: readonly (string | null | undefined)[]): boolean {
  return parts.some((s) => s != null && containsSensitive(s));
}

/** A stored verdict as readers apply it: not decided yet (NULL) or under recompute counts as masked. */
export function verdictMasked(verdict: boolean | null | undefined, recomputing = false): boolean {
  return verdict !== false || recomputing;
}

/**
 * What a reader without a reveal sees of a payload, by its stored verdict: clear when the verdict
 * says so, else what maskPayload shows (hidden whole when the verdict found a value maskPayload
 * cannot point at). Not decided yet or under recompute: maskPayload decides now.
 */
export function maskStoredPayload(payload: Uint8Array, policy: PayloadPolicy, verdict: boolean | null, recomputing: boolean): MaskedPayload {
  if (verdict === false && !recomputing) return { state: 'clear' };
  const m = maskPayload(payload, policy);
  if (m.state === 'clear' && verdict === true && !recomputing) return { state: 'hidden', why: 'This payload holds sensitive values.' };
  return m;
}
