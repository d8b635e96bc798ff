// Prints the secrets lib/env.ts settles on (for test/unit/env-secrets.test.ts). Waits for START_AT
// (epoch ms) first, so that several processes reach the state directory in the same millisecond.
import { env } from '@/lib/env';

const at = Number(process.env.START_AT ?? 0);
while (Date.now() < at) {
  // spin: a timer would let the processes drift apart again
}
const e = env();
process.stdout.write(JSON.stringify({ auth: e.AUTH_SECRET, checkpoint: e.AUDIT_CHECKPOINT_KEY }));
