// The security suite's masked-values matrix (issue 15): role × every reader of dead-letter data —
// search, the list, the API detail, the payload download, exports (with payloads), cluster detail
// and list, the audit trail's export. A role without payload.reveal reaches 0 masked values; a role
// with it reaches one only through a reveal, and every reveal is an audit event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '@/lib/auth';
import { closeDb, db } from '@/lib/db';
import { decideDeadLetter } from '@/lib/deadletters/decide';
import { recordDeadLetters } from '@/lib/deadletters/record-dead-letters';
import { canReveal } from '@/lib/masking';
import { closeQueues } from '@/lib/queue';
import { drainBacklog } from '@/lib/search';
import { resetDatabase } from '../support/db';
import { ACTING, principal, seedFixtures, type Fixtures } from './fixtures';

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

const CARD = '4111111111111111';
const EMAIL = 'holder.name@example.com';
const IBAN = 'GB82WEST12345698765432';
const SECRETS = [CARD, EMAIL, IBAN];

let fx: Fixtures;
let id: string;
let clusterId: string;

beforeAll(async () => {
  await resetDatabase();
  fx = await seedFixtures();
  const [r] = await recordDeadLetters({ id: fx.sources.orders.id, retentionSeconds: 14 * 86400 }, [
    {
      messageId: 'masked-matrix',
      payload: Buffer.from(JSON.stringify({ card: CARD, contact: EMAIL })),
      headers: { 'x-account': IBAN },
      reason: 'Rejected',
      errorType: 'MaskedMatrixError',
      errorMessage: `charge for ${EMAIL} with ${CARD} failed`,
      errorStack: `MaskedMatrixError: ${IBAN}\n    at charge (lib/billing.ts:1:1)`,
    },
  ]);
  id = r!.id;
  clusterId = (await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id) }, select: { clusterId: true } })).clusterId!;
  await drainBacklog();
  // An audit event that holds masked values in its reason.
  await decideDeadLetter(principal(fx.users[ACTING.admin]!), 'archive', id, `customer ${EMAIL} asked, card ${CARD}`);
});
afterAll(async () => {
  await closeQueues();
  await closeDb();
});

const READERS: { name: string; module: () => Promise<Record<string, unknown>>; path: () => string; params?: () => Record<string, string> }[] = [
  { name: 'search q= card', module: () => import('@/app/api/v1/dead-letters/route'), path: () => `/api/v1/dead-letters?q=${CARD.slice(0, 12)}&status=archived` },
  { name: 'search q= e-mail', module: () => import('@/app/api/v1/dead-letters/route'), path: () => `/api/v1/dead-letters?q=holder.name&status=archived` },
  { name: 'list', module: () => import('@/app/api/v1/dead-letters/route'), path: () => '/api/v1/dead-letters?messageId=masked-matrix' },
  { name: 'API detail', module: () => import('@/app/api/v1/dead-letters/[id]/route'), path: () => `/api/v1/dead-letters/${id}`, params: () => ({ id }) },
  { name: 'payload download', module: () => import('@/app/api/v1/dead-letters/[id]/payload/route'), path: () => `/api/v1/dead-letters/${id}/payload`, params: () => ({ id }) },
  { name: 'export ndjson with payloads', module: () => import('@/app/api/v1/dead-letters/export/route'), path: () => '/api/v1/dead-letters/export?format=ndjson&payload=true&messageId=masked-matrix' },
  { name: 'export csv', module: () => import('@/app/api/v1/dead-letters/export/route'), path: () => '/api/v1/dead-letters/export?format=csv&messageId=masked-matrix' },
  { name: 'cluster detail', module: () => import('@/app/api/v1/clusters/[id]/route'), path: () => `/api/v1/clusters/${clusterId}`, params: () => ({ id: clusterId }) },
  { name: 'cluster list', module: () => import('@/app/api/v1/clusters/route'), path: () => '/api/v1/clusters' },
  { name: 'audit export', module: () => import('@/app/api/v1/audit/export/route'), path: () => '/api/v1/audit/export?format=ndjson' },
];

const reveals = (userId: string) => db().auditEvent.count({ where: { action: 'payload.reveal', actorId: userId } });

describe.each(READERS.map((r) => [r.name, r] as const))('%s', (_name, reader) => {
  it.each(ROLES.map((r) => [r] as const))('%s: no masked value without a reveal', async (role: Role) => {
    const as = fx.users[ACTING[role]]!;
    const handler = (await reader.module()).GET as Handler;
    const before = await reveals(as.id);
    const res = await handler(new Request(`http://127.0.0.1:3000${reader.path()}`, { headers: { authorization: `Bearer ${as.token}` } }), {
      params: Promise.resolve(reader.params?.() ?? {}),
    });
    const body = await res.text();
    const revealed = (await reveals(as.id)) - before;
    // No reader reveals by itself: a GET writes no reveal event.
    expect(revealed, 'reveal events written by a GET').toBe(0);
    const actor = principal(as);
    if (res.status === 403 || res.status === 422 || res.status === 404) return; // refused: nothing shown
    expect(res.status, `${role} ${reader.name}`).toBe(200);
    // Without payload.reveal nothing masked, ever; with it, lists and searches are clear by design
    // (the role may read them), but the payload's exact bytes still needed a reveal above.
    if (!canReveal(actor)) for (const secret of SECRETS) expect(body, `${role} reaches ${secret} via ${reader.name}`).not.toContain(secret);
    if (reader.name === 'payload download') expect.unreachable(`${role} downloaded a masked payload without a reveal`);
  });
});

describe('a reveal', () => {
  it('is a POST, audited each time, and the download then uses it', async () => {
    const { POST } = await import('@/app/api/v1/dead-letters/[id]/reveal/route');
    const { GET } = await import('@/app/api/v1/dead-letters/[id]/payload/route');
    for (const role of ROLES) {
      const as = fx.users[ACTING[role]]!;
      const before = await reveals(as.id);
      const res = await (POST as Handler)(
        new Request(`http://127.0.0.1:3000/api/v1/dead-letters/${id}/reveal`, {
          method: 'POST',
          headers: { authorization: `Bearer ${as.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ reason: 'security suite' }),
        }),
        { params: Promise.resolve({ id }) },
      );
      if (!canReveal(principal(as))) {
        expect(res.status, role).toBe(403);
        expect(await reveals(as.id)).toBe(before);
        continue;
      }
      expect(res.status, role).toBe(201);
      expect(await reveals(as.id)).toBe(before + 1);
      const { revealId } = (await res.json()) as { revealId: string };
      const got = await (GET as Handler)(new Request(`http://127.0.0.1:3000/api/v1/dead-letters/${id}/payload?reveal=${revealId}`, { headers: { authorization: `Bearer ${as.token}` } }), {
        params: Promise.resolve({ id }),
      });
      expect(got.status, role).toBe(200);
      expect(await got.text()).toContain(CARD);
      expect(await reveals(as.id)).toBe(before + 1);
    }
  });
});
