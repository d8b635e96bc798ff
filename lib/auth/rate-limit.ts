// Sign-in limiter in Redis: failed attempts per e-mail and per client address in a fixed window,
// so guessing a password is slow whichever of the two an attacker varies. Successful sign-ins
// do not count (an office behind one address signs in freely).
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

export async function signInAllowed(email: string, ip: string | undefined): Promise<boolean> {
  const counts = await redis().mget(...keys(email, ip));
  return counts.every((n) => Number(n ?? 0) < env().SIGN_IN_MAX_ATTEMPTS);
}

export async function recordSignInFailure(email: string, ip: string | undefined): Promise<void> {
  const m = redis().multi();
  for (const k of keys(email, ip)) m.incr(k).expire(k, env().SIGN_IN_WINDOW_SECONDS, 'NX');
  await m.exec();
}

export async function clearSignInFailures(email: string): Promise<void> {
  await redis().del(keys(email, undefined));
}
