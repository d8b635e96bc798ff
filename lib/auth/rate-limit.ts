// Fixed-window sign-in limiter in Redis, per e-mail and per client address, so guessing a
// password is slow whichever of the two an attacker varies.
import { redis } from '@/lib/redis';
import { env } from '@/lib/env';

export async function signInAllowed(email: string, ip: string): Promise<boolean> {
  const { SIGN_IN_MAX_ATTEMPTS: max, SIGN_IN_WINDOW_SECONDS: window, QUEUE_PREFIX } = env();
  const keys = [`${QUEUE_PREFIX}:signin:email:${email.toLowerCase()}`, `${QUEUE_PREFIX}:signin:ip:${ip}`];
  const r = redis();
  const counts = await Promise.all(
    keys.map(async (k) => {
      const [[, n]] = (await r.multi().incr(k).expire(k, window, 'NX').exec()) as [[unknown, number], unknown];
      return n;
    }),
  );
  return counts.every((n) => n <= max);
}

export async function clearSignInFailures(email: string): Promise<void> {
  await redis().del(`${env().QUEUE_PREFIX}:signin:email:${email.toLowerCase()}`);
}
