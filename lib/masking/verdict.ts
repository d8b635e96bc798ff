// The masking verdict of a dead letter, decided once at write time (lib/intake/record-dead-letters.ts)
// and recomputed when its source's sensitive paths change (./recompute-verdicts.ts): whether its payload,
// and whether its headers or error text, hold anything a role without payload.reveal may not see.
// Search, lists, the API, exports and the viewer read the stored verdict, so they agree.
import { containsSensitive } from './detectors';
import { scanBytes } from './scan-bytes';
import { maskPayload, MAX_MASK_BYTES, type MaskedPayload, type PayloadPolicy } from './mask-json';

/**
 * Whether the detectors find a value anywhere in these bytes (./scan-bytes.ts); a JSON escape the
 * scan cannot read through is decided by maskPayload where the payload is small enough to parse.
 */
export function bytesContainSensitive(payload: Uint8Array): boolean {
  const found = scanBytes(payload);
  if (found === 'escaped') return payload.byteLength > MAX_MASK_BYTES || maskPayload(payload, { paths: [] }).state !== 'clear';
  return found === 'found';
}

/** Whether a payload is masked for roles without reveal: its flag, its source's paths, then the detectors over all of it. */
export function payloadVerdict(payload: Uint8Array, policy: PayloadPolicy): boolean {
  if (policy.sensitive) return true;
  if (policy.paths.length > 0) return maskPayload(payload, policy).state !== 'clear';
  return bytesContainSensitive(payload);
}

/** Whether headers, the error message, the stack or the failure history (as JSON text) hold a detected value. */
export function textVerdict(parts: readonly (string | null | undefined)[]): boolean {
  // Each part on its own: the same verdict as one scan of the parts joined by a line break (no detected
  // value spans one, and none reads a line break as part of it), without copying them into one string.
  for (const s of parts) if (s != null && containsSensitive(s)) return true;
  return false;
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
