// The demo's shape for the SLA, alarm, retention, metrics and webhook tests: two teams, a user per
// role, orders and notifications (commerce) and payments (finance).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SYSTEM, type Actor } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { createUser } from '@/lib/admin/users';
import { createSource } from '@/lib/sources/create-source';
import type { NewDeadLetter } from '@/lib/intake/record-dead-letters';

export async function demoWorld() {
  const commerce = await createTeam(SYSTEM, { name: 'commerce' });
  const finance = await createTeam(SYSTEM, { name: 'finance' });
  const actor = async (email: string, role: Actor['role'], team?: string): Promise<Actor> => {
    const u = await createUser(SYSTEM, { email, role, team });
    return { userId: u.id, email: u.email, role, teamId: u.teamId, via: 'session' };
  };
  const users = {
    lead: await actor('lead@triage.local', 'lead', 'commerce'),
    support: await actor('support@triage.local', 'support', 'commerce'),
    auditor: await actor('auditor@triage.local', 'auditor'),
    admin: await actor('admin@triage.local', 'admin'),
    financeLead: await actor('finance-lead@triage.local', 'lead', 'finance'),
  };
  const sources = {
    orders: await createSource(SYSTEM, { name: 'orders', team: 'commerce' }),
    notifications: await createSource(SYSTEM, { name: 'notifications', team: 'commerce' }),
    payments: await createSource(SYSTEM, { name: 'payments', team: 'finance' }),
  };
  return { teams: { commerce, finance }, users, sources };
}

let seq = 0;
export function deadLetter(over: Partial<NewDeadLetter> & { deadAt: Date }): NewDeadLetter {
  seq++;
  return {
    messageId: `m-${seq}`,
    payload: new TextEncoder().encode(JSON.stringify({ n: seq })),
    reason: 'MaxReceives',
    errorType: 'Error',
    errorMessage: `failure ${seq}`,
    receiveCount: 5,
    ...over,
  };
}

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A webhook receiver on 127.0.0.1 and a random port. `respond` picks each answer's status (the
 * default accepts everything); `waitFor(n)` resolves once n requests arrived.
 */
export async function webhookReceiver(respond: (n: number) => number = () => 200) {
  const received: Received[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let attempts = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = respond(++attempts);
      if (status < 300) received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status).end();
      for (const w of waiters.filter((w) => received.length >= w.n)) w.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    attempts: () => attempts,
    waitFor: (n: number) => (received.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
