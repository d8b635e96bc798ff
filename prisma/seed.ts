// Demo data: two teams, one user per role, a few sources, and on a fresh database 30 days of
// history (lib/demo/past). Idempotent: safe on every `npm run demo`.
import { SYSTEM } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { createUser } from '@/lib/admin/users';
import { simulatedClock, systemClock, type Clock } from '@/lib/clock';
import { createSource } from '@/lib/sources/create-source';
import { closeDb, db } from '@/lib/db';
import { HISTORY_DAYS, demoPastSeeded, pastSpan, seedDemoPast } from '@/lib/demo/past';
import { closeQueues } from '@/lib/queue';
import { createRedriveRule, type CreateRuleInput } from '@/lib/redrive-rules';

export const DEMO_PASSWORD = 'triage-demo';

export const DEMO_USERS = [
  { email: 'support@triage.local', role: 'support', team: 'commerce' },
  { email: 'lead@triage.local', role: 'lead', team: 'commerce' },
  { email: 'auditor@triage.local', role: 'auditor' },
  { email: 'admin@triage.local', role: 'admin' },
  { email: 'finance-support@triage.local', role: 'support', team: 'finance' },
  { email: 'finance-lead@triage.local', role: 'lead', team: 'finance' },
] as const;

export const DEMO_SOURCES = [
  { name: 'orders', team: 'commerce', kind: 'builtin', description: 'Order events; v1 of the handler rejects the unknown field "gift"' },
  // Demo-sized retry policies, so a missing member or a gateway outage is parked within seconds.
  {
    name: 'notifications',
    team: 'commerce',
    kind: 'builtin',
    description: 'Member notifications; some members do not exist',
    maxReceives: 3,
    backoffBaseMs: 200,
  },
  { name: 'payments', team: 'finance', kind: 'builtin', description: 'Payment captures; the downstream has outages', maxReceives: 4, backoffBaseMs: 250 },
  { name: 'partner-webhooks', team: 'finance', kind: 'ingest', description: 'Dead letters forwarded by a partner system through the ingest API' },
] as const;

// The payments outage's wave is redriven by a rule once the gateway is back: the finance
// lead's, so a wave above the approval threshold would wait for a second person. Demo-sized: 30 s of
// an OK rate alarm (the alarm itself turns OK one rate window, 5 minutes, after the wave's last death).
export const DEMO_REDRIVE_RULES: (CreateRuleInput & { source: string })[] = [
  {
    source: 'payments',
    name: 'redrive the wave after a gateway outage',
    kind: 'after_wave',
    okForSeconds: 30,
    ratePerSecond: 20,
    canary: true,
    author: 'finance-lead@triage.local',
  },
];

const actor = { ...SYSTEM, label: 'seed' };

/** The demo's redrive rules that do not exist yet, audited at the clock's time. */
async function seedRedriveRules(clock: Clock): Promise<number> {
  let created = 0;
  for (const { source, ...rule } of DEMO_REDRIVE_RULES) {
    if (await db().redriveRule.findFirst({ where: { source: { name: source }, name: rule.name } })) continue;
    await createRedriveRule(actor, source, rule, clock);
    created++;
  }
  return created;
}

/**
 * The teams, users and sources (and, unless told not to, the redrive rules), audited at the
 * clock's time.
 */
export async function seed(clock: Clock = systemClock, opts: { rules?: boolean } = {}): Promise<{ created: number }> {
  let created = 0;
  for (const name of ['commerce', 'finance']) {
    if (!(await db().team.findUnique({ where: { name } }))) {
      await createTeam(actor, { name }, clock);
      created++;
    }
  }
  for (const u of DEMO_USERS) {
    if (!(await db().user.findUnique({ where: { email: u.email } }))) {
      await createUser(actor, { email: u.email, role: u.role, team: 'team' in u ? u.team : undefined, password: DEMO_PASSWORD }, clock);
      created++;
    }
  }
  for (const s of DEMO_SOURCES) {
    if (!(await db().source.findUnique({ where: { name: s.name } }))) {
      await createSource(actor, s, clock);
      created++;
    }
  }
  if (opts.rules !== false) created += await seedRedriveRules(clock);
  return { created };
}

/**
 * `npm run demo`'s seed (and the browser tests'). A fresh database (nothing on its audit trail) is
 * set up a month ago and then given its past, both on a simulated clock, before anything live; a
 * database that has a trail already keeps it: its past is never played again, nor into it.
 */
export async function seedDemo(now: Date = new Date()): Promise<{ created: number; past: 'played' | 'present' | 'not fresh'; deadLetters?: number }> {
  if ((await db().auditEvent.count()) === 0) {
    const span = pastSpan(now);
    const clock = simulatedClock(span.setupAt);
    const { created } = await seed(clock, { rules: false });
    const result = await seedDemoPast(span, clock);
    // After the past: the rule is new, so the past's outage was redriven by hand, and the rule
    // waits for the next wave (it looks only at waves that end after it was made).
    const rules = await seedRedriveRules(clock);
    return { created: created + rules, past: 'played', deadLetters: result.deadLetters };
  }
  const { created } = await seed();
  return { created, past: (await demoPastSeeded()) ? 'present' : 'not fresh' };
}

/**
 * Why this process may not make the demo's users (undefined when it may). Their password is in the
 * README, so on a production database they would let anyone in as admin: production must say it is
 * the demo.
 */
export function demoSeedRefusal(vars: NodeJS.ProcessEnv): string | undefined {
  if (vars.NODE_ENV !== 'production' || vars.TRIAGE_DEMO === '1') return undefined;
  return [
    'refusing to seed the demo under NODE_ENV=production: its users (an admin among them) have the',
    `password printed in the README (${DEMO_PASSWORD}). Set TRIAGE_DEMO=1 only for a demo instance`,
    '(npm run demo and `docker compose --profile demo` do). A real deployment gets its first admin',
    'with `npm run triage -- admin bootstrap --email you@example.com`.',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const refusal = demoSeedRefusal(process.env);
  if (refusal) {
    console.error(`✗ seed: ${refusal}`);
    process.exit(1);
  }
  const started = Date.now();
  seedDemo()
    .then((r) => {
      console.log(r.created ? `seeded ${r.created} records` : 'demo data already present');
      if (r.past === 'played')
        console.log(`played ${HISTORY_DAYS} days of demo history (${r.deadLetters} dead letters) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      if (r.past === 'not fresh')
        console.log('no demo history: it is played only into a fresh database (drop it, or set DATABASE_URL to a new one, to have it)');
    })
    .finally(() => Promise.all([closeQueues(), closeDb()]));
}
