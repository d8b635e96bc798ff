// Demo data: two teams, one user per role, a few sources. Idempotent: safe on every `npm run demo`.
import { SYSTEM } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { createUser } from '@/lib/admin/users';
import { createSource } from '@/lib/sources/create-source';
import { closeDb, db } from '@/lib/db';

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
  { name: 'notifications', team: 'commerce', kind: 'builtin', description: 'Member notifications; some members do not exist', maxReceives: 3, backoffBaseMs: 200 },
  { name: 'payments', team: 'finance', kind: 'builtin', description: 'Payment captures; the downstream has outages', maxReceives: 4, backoffBaseMs: 250 },
  { name: 'partner-webhooks', team: 'finance', kind: 'ingest', description: 'Dead letters forwarded by a partner system through the ingest API' },
] as const;

const actor = { ...SYSTEM, label: 'seed' };

export async function seed(): Promise<{ created: number }> {
  let created = 0;
  for (const name of ['commerce', 'finance']) {
    if (!(await db().team.findUnique({ where: { name } }))) {
      await createTeam(actor, { name });
      created++;
    }
  }
  for (const u of DEMO_USERS) {
    if (!(await db().user.findUnique({ where: { email: u.email } }))) {
      await createUser(actor, { email: u.email, role: u.role, team: 'team' in u ? u.team : undefined, password: DEMO_PASSWORD });
      created++;
    }
  }
  for (const s of DEMO_SOURCES) {
    if (!(await db().source.findUnique({ where: { name: s.name } }))) {
      await createSource(actor, s);
      created++;
    }
  }
  return { created };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  seed()
    .then(({ created }) => console.log(created ? `seeded ${created} records` : 'demo data already present'))
    .finally(() => closeDb());
}
