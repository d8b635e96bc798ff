// Webhook signatures: HMAC-SHA256 over "<timestamp>.<body>" with the webhook's secret, so a receiver
// can check the sender and refuse replays of old deliveries (Stripe and Slack sign the same way).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-triage-signature';
export const TIMESTAMP_HEADER = 'x-triage-timestamp';

export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** For receivers (and tests): true when `signature` is ours for this body and timestamp. */
export function verifyWebhookSignature(secret: string, timestamp: number, body: string, signature: string): boolean {
  const expected = Buffer.from(signWebhook(secret, timestamp, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
