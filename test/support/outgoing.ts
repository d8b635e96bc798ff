// A redrive as the runner hands it to a destination, for tests: a first redrive (redriveCount 0)
// with no enqueue time and no ordering, idempotency or correlation key, `origin` the headers unless
// a test says otherwise (an edited copy), and what the test sets.
import type { OutgoingRedrive } from '@/lib/redrive/destinations';

export function outgoingRedrive(over: Partial<OutgoingRedrive> & Pick<OutgoingRedrive, 'payload'>): OutgoingRedrive {
  const headers = over.headers ?? {};
  return {
    deadLetterId: 1n,
    messageId: 'm-1',
    contentType: null,
    headers,
    origin: headers,
    redriveCount: 0,
    enqueuedAt: null,
    orderingKey: null,
    idempotencyKey: null,
    correlationId: null,
    ...over,
  };
}
