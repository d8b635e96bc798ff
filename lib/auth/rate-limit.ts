// Sign-in limiter in Redis: attempts per e-mail and per client address in a fixed window, so
// guessing a password is slow whichever of the two an attacker varies. An attempt is counted before
// anything else runs (the KDF, the audit append) in one atomic step, so parallel attempts cannot all
// pass a check made before any of them counted; a successful sign-in gives its attempt back (an office
// behind one address signs in freely).
import { redis } from '@/lib/redis';
import { env } from '@/lib/env';

// `ip` is undefined unless a trusted proxy names the client (TRUST_PROXY): then only the per-e-mail
// limit applies, rather than one shared bucket that a stranger could fill to lock everyone out.
function keys(email: string, ip: string | undefined): string[] {
  const p = env().QUEUE_PREFIX;
  const k = [`${p}:signin-failures:email:${email.toLowerCase()}`];
  if (ip) k.push(`${p}:signin-failures:ip:${ip}`);
  return k;
}

// INCR every key (the window starts at its first attempt) and answer the highest count.
const TAKE = `
local highest = 0
for _, k in ipairs(KEYS) do
  local n = redis.call('INCR', k)
  if n == 1 then redis.call('EXPIRE', k, ARGV[1]) end
  if n > highest then highest = n end
end
return highest`;

export interface SignInAttempt {
  allowed: boolean;
  /** This attempt is the first one refused in the window: the one worth an audit event. */
  justLimited: boolean;
}

/** Counts an attempt and says whether it may go on to the password check. */
export async function takeSignInAttempt(email: string, ip: string | undefined): Promise<SignInAttempt> {
  const k = keys(email, ip);
  const n = Number(await redis().eval(TAKE, k.length, ...k, env().SIGN_IN_WINDOW_SECONDS));
  const max = env().SIGN_IN_MAX_ATTEMPTS;
  return { allowed: n <= max, justLimited: n === max + 1 };
}

/** After a successful sign-in: the e-mail's failures are forgiven, the address gets its attempt back. */
export async function releaseSignInAttempt(email: string, ip: string | undefined): Promise<void> {
  const [emailKey, ipKey] = keys(email, ip);
  const m = redis().multi().del(emailKey!);
  if (ipKey) m.decr(ipKey);
  await m.exec();
}

const UNKNOWN_BUCKET_MS = 60_000;

/**
 * Counts a failed sign-in of an e-mail no user has. They are aggregated per minute rather than one
 * audit event each (a flood of made-up addresses must not grow the trail): `first` is true for the
 * minute's first, which writes the one event and carries the previous minute's total.
 */
export async function countUnknownEmailFailure(now = Date.now()): Promise<{ first: boolean; minute: Date; previousMinute: number }> {
  const bucket = Math.floor(now / UNKNOWN_BUCKET_MS);
  const p = env().QUEUE_PREFIX;
  const key = (b: number) => `${p}:signin-unknown:${b}`;
  const results =
    (await redis()
      .multi()
      .incr(key(bucket))
      .expire(key(bucket), 300)
      .get(key(bucket - 1))
      .exec()) ?? [];
  const n = Number(results[0]?.[1] ?? 0);
  const previous = results[2]?.[1] as string | null | undefined;
  return { first: n === 1, minute: new Date(bucket * UNKNOWN_BUCKET_MS), previousMinute: Number(previous ?? 0) };
}
