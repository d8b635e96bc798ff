// The demo's two switches, kept in the settings table so the CLI, the UI and every worker agree:
// which handler version is "deployed", and until when the payments downstream is "down".
import { db } from '@/lib/db';
import { env } from '@/lib/env';

export const HANDLER_VERSION_KEY = 'demo.handlerVersion';
export const PAYMENTS_OUTAGE_KEY = 'demo.paymentsOutageUntil';
export const HANDLER_VERSIONS = ['v1', 'v2'] as const;
export type HandlerVersion = (typeof HANDLER_VERSIONS)[number];

// A deploy reaches the consumers within this long, without a query per message.
const VERSION_CACHE_MS = 2_000;
let cachedVersion: { version: HandlerVersion; at: number } | undefined;

const isVersion = (v: unknown): v is HandlerVersion => HANDLER_VERSIONS.includes(v as HandlerVersion);

/** The deployed handler version: the setting, else DEMO_HANDLER_VERSION. */
export async function demoHandlerVersion(): Promise<HandlerVersion> {
  if (cachedVersion && Date.now() - cachedVersion.at < VERSION_CACHE_MS) return cachedVersion.version;
  const row = await db().setting.findUnique({ where: { key: HANDLER_VERSION_KEY } });
  const version = isVersion(row?.value) ? row.value : env().DEMO_HANDLER_VERSION;
  cachedVersion = { version, at: Date.now() };
  return version;
}

/**
 * Until when the simulated payments downstream answers 503. Read on every payment, uncached: an
 * outage must start exactly when the producer says, or the demo's wave would be a matter of luck.
 */
export async function paymentsDownUntil(): Promise<Date | null> {
  const row = await db().setting.findUnique({ where: { key: PAYMENTS_OUTAGE_KEY } });
  return typeof row?.value === 'string' ? new Date(row.value) : null;
}

/** Take the simulated payments downstream down for `seconds` from now (the outside world, not a decision: not audited). */
export async function startPaymentsOutage(seconds: number): Promise<Date> {
  const until = new Date(Date.now() + seconds * 1000);
  await db().setting.upsert({
    where: { key: PAYMENTS_OUTAGE_KEY },
    create: { key: PAYMENTS_OUTAGE_KEY, value: until.toISOString() },
    update: { value: until.toISOString() },
  });
  return until;
}
