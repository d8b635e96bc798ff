// The demo's past: 30 days of history for the demo's sources, played once into a fresh
// database before anything live (prisma/seed.ts), so the first screen of `npm run demo` shows what
// the product is for. A source joins the history by adding its SourceHistory to DEMO_HISTORIES.
import type { SystemPrincipal } from '@/lib/auth';
import { DAY, MINUTE, type Clock } from '@/lib/clock';
import { db } from '@/lib/db';
import { notificationsHistory } from './notifications';
import { ordersHistory } from './orders';
import { paymentsHistory } from './payments';
import { playHistory, type PastResult, type SourceHistory, type Span } from './timeline';

export type { PastContext, PastEvent, SourceHistory, Span } from './timeline';

export const DEMO_HISTORIES: SourceHistory[] = [
  ordersHistory,
  notificationsHistory,
  paymentsHistory,
  // Fed by a partner through the ingest API: no past of its own, only the demo's retention.
  { source: 'partner-webhooks', policy: { retentionSeconds: 40 * 86_400 }, events: () => [] },
];

/** The history's actor, on every audit event it writes: an auditor tells it from real decisions. */
export const DEMO_SEEDER: SystemPrincipal = { system: true, label: 'demo-seeder' };

export const HISTORY_DAYS = 30;
/** The history ends this long before it is played, so everything live comes after it. */
const END_MARGIN_MS = 2 * MINUTE;
/** The demo's setup (teams, users, sources) is dated a day before the history starts. */
const SETUP_LEAD_MS = DAY;

export const DEMO_PAST_KEY = 'demo.past';

/** The span a history played now covers, and when the setup before it happens. */
export function pastSpan(now: Date = new Date()): Span & { setupAt: Date } {
  const end = new Date(now.getTime() - END_MARGIN_MS);
  const start = new Date(end.getTime() - HISTORY_DAYS * DAY);
  return { start, end, setupAt: new Date(start.getTime() - SETUP_LEAD_MS) };
}

/** Whether this database has the demo's past (played once, ever). */
export async function demoPastSeeded(): Promise<boolean> {
  return (await db().setting.findUnique({ where: { key: DEMO_PAST_KEY } })) !== null;
}

/** Play the history (the caller set the demo up at span.setupAt on the same clock) and mark it played. */
export async function seedDemoPast(span: Span, clock: Clock & { jumpTo(at: Date): void }, histories = DEMO_HISTORIES): Promise<PastResult> {
  const result = await playHistory(histories, span, clock, DEMO_SEEDER);
  await db().setting.create({ data: { key: DEMO_PAST_KEY, value: { from: span.start.toISOString(), to: span.end.toISOString(), ...result } } });
  return result;
}
