// The reader boundary's matrix: every reader of dead-letter content (the registry READERS: lists,
// search, detail, payload and version downloads, versions and their diffs, exports, clusters, the
// transform and split previews, redrive tasks, the audit trail) × every role. A dead letter carries a
// value at its source's sensitive path, values the detectors find (card, e-mail, IBAN) in its
// payload, headers and error text, and an e-mail address as a JSON key; an admin's edit of it
// leaves a version and an audit event whose diff touched the sensitive path. No role reaches any of
// them without a reveal, whatever its permissions; a reveal is a POST and is audited. A reader path
// that exists under app/api without an entry here, or a reason in NOT_READERS, fails the suite; so
// does an assistant tool that reads (lib/assistant/tools.ts) without an entry in TOOL_READERS: the
// assistant never reveals, even for a user who did.
import { beforeAll, describe, expect, it } from 'vitest';
import { ASSISTANT_TOOLS } from '@/lib/assistant/tools';
import { ROLES, type Role } from '@/lib/auth';
import { db } from '@/lib/db';
import { decideDeadLetter } from '@/lib/deadletters/decide';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { revealPayload } from '@/lib/deadletters/reveal-payload';
import { canReveal } from '@/lib/masking';
import { registryEntries } from '@/lib/openapi/routes';
import { editDeadLetter } from '@/lib/redrive/edit';
import { drainBacklog } from '@/lib/search';
import { answerText, callTool, serveAssistants, type ServedAssistants } from '../support/assistant';
import { routeKey } from './endpoints';
import { ACTING, principal } from './fixtures';
import { routeHandlers } from './inventory';
import { seededFixtures } from './lifecycle';

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

const CARD = '4111111111111111';
const EMAIL = 'holder.name@example.com';
const IBAN = 'GB82WEST12345698765432';
/** Values only the source's policy finds: no detector knows them. */
const POLICY = 'POLICY-VALUE-7731';
const POLICY_EDITED = 'POLICY-VALUE-8842';
/** An e-mail address that is a key of the payload's JSON, not a value. */
const KEY_EMAIL = 'key.holder@example.org';
/** Values at the policy's path in an edit made before the source's policy named that path. */
const LEGACY = 'POLICY-VALUE-5519';
const LEGACY_EDITED = 'POLICY-VALUE-6620';
const SECRETS = [CARD, EMAIL, IBAN, POLICY, POLICY_EDITED, KEY_EMAIL, LEGACY, LEGACY_EDITED];

const payloadOf = (code: string) => JSON.stringify({ card: CARD, contact: EMAIL, account: { code }, contacts: { [KEY_EMAIL]: true } });

let archived: string;
let open: string;
let legacy: string;
let clusterId: string;
let assistants: ServedAssistants;
const fx = seededFixtures(() => assistants.close());

beforeAll(async () => {
  // An edit of a field the policy did not name yet: its version and audit event hold both values,
  // which must read as masked once the policy names the path.
  const admin0 = principal(fx.users[ACTING.admin]!);
  [legacy] = (
    await recordDeadLetters({ id: fx.sources.notifications.id, retentionSeconds: 14 * 86400 }, [
      {
        messageId: 'masked-legacy',
        payload: Buffer.from(payloadOf(LEGACY)),
        contentType: 'application/json',
        reason: 'Rejected' as const,
        errorType: 'MaskedLegacyError',
      },
    ])
  ).map((r) => r.id) as [string];
  const { eventId: legacyReveal } = await revealPayload(admin0, legacy, 'fix the account code', 'page');
  await editDeadLetter(admin0, legacy, { payload: payloadOf(LEGACY_EDITED), reason: 'fix the account code', revealId: legacyReveal });
  for (const source of [fx.sources.orders, fx.sources.notifications])
    await db().source.update({ where: { id: source.id }, data: { sensitivePaths: ['$.account.code'] } });
  const letter = (messageId: string) => ({
    messageId,
    payload: Buffer.from(payloadOf(POLICY)),
    contentType: 'application/json',
    headers: { 'x-account': IBAN, [`x-${KEY_EMAIL}`]: 'key' },
    reason: 'Rejected' as const,
    errorType: 'MaskedMatrixError',
    errorMessage: `charge for ${EMAIL} with ${CARD} failed`,
    errorStack: `MaskedMatrixError: ${IBAN}\n    at charge (lib/billing.ts:1:1)`,
  });
  const rows = await recordDeadLetters({ id: fx.sources.orders.id, retentionSeconds: 14 * 86400 }, [letter('masked-matrix'), letter('masked-open')]);
  [archived, open] = rows.map((r) => r.id) as [string, string];
  clusterId = (await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(archived) }, select: { clusterId: true } })).clusterId!;
  await drainBacklog();
  const admin = principal(fx.users[ACTING.admin]!);
  // An audit event that holds detected values in its reason.
  await decideDeadLetter(admin, 'archive', archived, `customer ${EMAIL} asked, card ${CARD}`);
  // An edit of the sensitive field, by an admin after a reveal: a version with a diff, and an audit event.
  const { eventId } = await revealPayload(admin, open, 'fix the account code', 'page');
  await editDeadLetter(admin, open, { payload: payloadOf(POLICY_EDITED), reason: 'fix the account code', revealId: eventId });
  assistants = await serveAssistants(ACTING);
});

interface Reader {
  name: string;
  /**
   * The route it reads through, as app/ declares it (for the completeness check): its handler, from
   * the API's registry, is called with the path values of `url` (a body makes it a POST).
   */
  route: string;
  url: () => string;
  body?: () => unknown;
}

const READERS: Reader[] = [
  {
    name: 'search q= card',
    route: 'GET /api/v1/dead-letters',
    url: () => `/api/v1/dead-letters?q=${CARD.slice(0, 12)}&status=archived`,
  },
  {
    name: 'search q= e-mail',
    route: 'GET /api/v1/dead-letters',
    url: () => '/api/v1/dead-letters?q=holder.name',
  },
  {
    name: 'list',
    route: 'GET /api/v1/dead-letters',
    url: () => '/api/v1/dead-letters?errorType=MaskedMatrixError&status=open,archived',
  },
  {
    name: "a source's list",
    route: 'GET /api/v1/sources/:source/dead-letters',
    url: () => '/api/v1/sources/orders/dead-letters?errorType=MaskedMatrixError',
  },
  {
    name: 'API detail',
    route: 'GET /api/v1/dead-letters/:id',
    url: () => `/api/v1/dead-letters/${archived}`,
  },
  {
    name: 'payload download',
    route: 'GET /api/v1/dead-letters/:id/payload',
    url: () => `/api/v1/dead-letters/${open}/payload`,
  },
  {
    name: 'versions and their diffs',
    route: 'GET /api/v1/dead-letters/:id/versions',
    url: () => `/api/v1/dead-letters/${open}/versions`,
  },
  {
    name: 'versions stored before the policy named their path',
    route: 'GET /api/v1/dead-letters/:id/versions',
    url: () => `/api/v1/dead-letters/${legacy}/versions`,
  },
  {
    name: 'version download',
    route: 'GET /api/v1/dead-letters/:id/versions/:version/payload',
    url: () => `/api/v1/dead-letters/${open}/versions/1/payload`,
  },
  {
    name: 'export ndjson with payloads',
    route: 'GET /api/v1/dead-letters/export',
    url: () => '/api/v1/dead-letters/export?format=ndjson&payload=true&errorType=MaskedMatrixError',
  },
  {
    name: 'export csv',
    route: 'GET /api/v1/dead-letters/export',
    url: () => '/api/v1/dead-letters/export?format=csv&errorType=MaskedMatrixError',
  },
  {
    name: 'bulk preview',
    route: 'POST /api/v1/dead-letters/bulk/preview',
    url: () => '/api/v1/dead-letters/bulk/preview',
    body: () => ({ decision: 'archive', selection: { ids: [open] } }),
  },
  {
    name: 'cluster detail',
    route: 'GET /api/v1/clusters/:id',
    url: () => `/api/v1/clusters/${clusterId}`,
  },
  { name: 'cluster list', route: 'GET /api/v1/clusters', url: () => '/api/v1/clusters' },
  {
    name: 'merge suggestions',
    route: 'GET /api/v1/clusters/:id/merge-suggestions',
    url: () => `/api/v1/clusters/${clusterId}/merge-suggestions`,
  },
  {
    name: 'split preview by a sensitive field',
    route: 'POST /api/v1/clusters/:id/split/preview',
    url: () => `/api/v1/clusters/${clusterId}/split/preview`,
    body: () => ({ by: { field: 'payload', path: '$.account.code' } }),
  },
  {
    name: 'split preview by a detected field',
    route: 'POST /api/v1/clusters/:id/split/preview',
    url: () => `/api/v1/clusters/${clusterId}/split/preview`,
    body: () => ({ by: { field: 'header', name: 'x-account' } }),
  },
  {
    name: 'transform preview',
    route: 'POST /api/v1/redrives/transform/preview',
    url: () => '/api/v1/redrives/transform/preview',
    body: () => ({
      selection: { ids: [open] },
      transform: [
        { op: 'set', path: '$.account.code', value: 'x' },
        { op: 'set', path: '$.contact', value: 'y' },
      ],
    }),
  },
  { name: 'redrive tasks', route: 'GET /api/v1/redrives', url: () => '/api/v1/redrives' },
  {
    name: 'audit export',
    route: 'GET /api/v1/audit/export',
    url: () => '/api/v1/audit/export?format=ndjson',
  },
];

/** Routes under app/api that return no dead-letter content, each with why. */
const NOT_READERS: Record<string, string> = {
  'GET /api/health': 'liveness, no data',
  'GET /api/mcp': 'the MCP transport: 405 (its reader tools are TOOL_READERS below)',
  'GET /api/metrics': 'counters only',
  'GET /api/v1/openapi': 'the API description',
  'GET /api/v1/openapi.json': 'the API description',
  'GET /api/v1/audit/verify': 'the chain verdict: ids and problems',
  'GET /api/v1/clusters/:id/ownership': "a cause's owner, status and notes, written by people",
  'GET /api/v1/redrives/:id': 'a task: counts, settings, selection (ids or a filter), reasons written by people',
  'GET /api/v1/redrives/:id/series': 'counts over time',
  'GET /api/v1/redrives/preview': 'counts',
  'GET /api/v1/sources': 'sources: settings',
  'GET /api/v1/sources/:source': 'a source: settings',
  'GET /api/v1/sources/:source/alarms': 'counts and thresholds',
  'GET /api/v1/sources/:source/grouping-rules': 'the rules themselves',
  'GET /api/v1/sources/:source/grouping-rules/reapply': 'a re-application: counts',
  'GET /api/v1/sources/:source/policy': 'the policy itself',
  'GET /api/v1/sources/:source/redrive-rules': 'the rules themselves',
  'GET /api/v1/users': 'people',
  'GET /api/v1/views': 'saved filters',
  'GET /api/v1/views/:id': 'a saved filter',
  'GET /api/v1/webhooks': 'webhook settings',
  'GET /api/v1/webhooks/:id/deliveries': "deliveries: status codes and times, not the bodies' content",
};

/** The values in `url`'s path of the route's `:name` segments. */
function pathValues(route: string, url: string): Record<string, string> {
  const segments = new URL(url, 'http://127.0.0.1').pathname.split('/');
  return Object.fromEntries(
    route
      .split(' ')[1]!
      .split('/')
      .flatMap((segment, i) => (segment.startsWith(':') ? [[segment.slice(1), decodeURIComponent(segments[i]!)]] : [])),
  );
}

const reveals = (userId: string) => db().auditEvent.count({ where: { action: 'payload.reveal', actorId: userId } });

describe('the registry of readers', () => {
  it('covers every GET under app/api and every preview: a new reader needs an entry (or a reason it reads nothing)', async () => {
    const covered = new Set(READERS.map((r) => r.route));
    const readers = (await routeHandlers())
      .filter((h) => h.method === 'GET' || (h.method === 'POST' && /\/preview$/.test(h.path)))
      .map((h) => `${h.method} ${h.path}`)
      .filter((r) => !r.startsWith('GET /api/auth/'));
    const missing = readers.filter((r) => !covered.has(r) && !(r in NOT_READERS));
    expect(missing, 'reader paths without an entry').toEqual([]);
  });
});

describe.each(READERS.map((r) => [r.name, r] as const))('%s', (_name, reader) => {
  it.each(ROLES.map((r) => [r] as const))('%s: no masked value without a reveal', async (role: Role) => {
    const as = fx.users[ACTING[role]]!;
    const handler = registryEntries().find((e) => routeKey(e) === reader.route)!.handler as Handler;
    const before = await reveals(as.id);
    const init: RequestInit = reader.body
      ? { method: 'POST', headers: { authorization: `Bearer ${as.token}`, 'content-type': 'application/json' }, body: JSON.stringify(reader.body()) }
      : { headers: { authorization: `Bearer ${as.token}` } };
    const res = await handler(new Request(`http://127.0.0.1:3000${reader.url()}`, init), { params: Promise.resolve(pathValues(reader.route, reader.url())) });
    const body = await res.text();
    // No reader reveals by itself: it writes no reveal event.
    expect((await reveals(as.id)) - before, 'reveal events written by a reader').toBe(0);
    if (res.status === 403 || res.status === 422 || res.status === 404) return; // refused: nothing shown
    expect(res.status, `${role} ${reader.name}: ${body.slice(0, 300)}`).toBe(200);
    // One rule for every role: a permission to reveal is not a reveal.
    for (const secret of SECRETS) expect(body, `${role} reaches ${secret} via ${reader.name}`).not.toContain(secret);
    if (/download/.test(reader.name)) expect.unreachable(`${role} downloaded a masked payload without a reveal`);
  });
});

describe('a reveal', () => {
  it('is a POST, audited each time; the download and the detail then use it', async () => {
    const { POST } = await import('@/app/api/v1/dead-letters/[id]/reveal/route');
    const { GET: download } = await import('@/app/api/v1/dead-letters/[id]/payload/route');
    const { GET: detail } = await import('@/app/api/v1/dead-letters/[id]/route');
    const id = archived;
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
      const got = await (download as Handler)(
        new Request(`http://127.0.0.1:3000/api/v1/dead-letters/${id}/payload?reveal=${revealId}`, { headers: { authorization: `Bearer ${as.token}` } }),
        {
          params: Promise.resolve({ id }),
        },
      );
      expect(got.status, role).toBe(200);
      expect(await got.text()).toContain(CARD);
      const clear = await (detail as Handler)(
        new Request(`http://127.0.0.1:3000/api/v1/dead-letters/${id}?reveal=${revealId}`, { headers: { authorization: `Bearer ${as.token}` } }),
        {
          params: Promise.resolve({ id }),
        },
      );
      expect(clear.status, role).toBe(200);
      expect(await clear.text()).toContain(EMAIL);
      expect(await reveals(as.id)).toBe(before + 1);
    }
  });

  it('an export reveals only as a POST with a reason, audited with its count', async () => {
    const mod = await import('@/app/api/v1/dead-letters/export/route');
    const as = fx.users[ACTING.support]!;
    const url = 'http://127.0.0.1:3000/api/v1/dead-letters/export?format=ndjson&payload=true&errorType=MaskedMatrixError';
    const link = await (mod.GET as Handler)(new Request(`${url}&revealReason=chargeback`, { headers: { authorization: `Bearer ${as.token}` } }), {
      params: Promise.resolve({}),
    });
    expect(link.status).toBe(422);
    const before = await reveals(as.id);
    const res = await (mod.POST as Handler)(
      new Request(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${as.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ revealReason: 'chargeback batch #9' }),
      }),
      { params: Promise.resolve({}) },
    );
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain(EMAIL);
    expect(await reveals(as.id)).toBe(before + 1);
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: 'payload.reveal', actorId: as.id }, orderBy: { id: 'desc' } });
    expect(event).toMatchObject({ reason: 'chargeback batch #9', count: 2 });
  });
});

/** The assistant's reader tools, called through the served /api/mcp with an assistant token of each role. */
const TOOL_READERS: { name: string; tool: string; args: () => Record<string, unknown> }[] = [
  { name: 'search q= card', tool: 'search_dead_letters', args: () => ({ q: CARD.slice(0, 12), status: 'archived' }) },
  { name: 'search q= e-mail', tool: 'search_dead_letters', args: () => ({ q: 'holder.name' }) },
  { name: 'list', tool: 'search_dead_letters', args: () => ({ errorType: 'MaskedMatrixError', status: ['open', 'archived'] }) },
  { name: 'detail, revealed in person before', tool: 'get_dead_letter', args: () => ({ id: open }) },
  { name: 'detail', tool: 'get_dead_letter', args: () => ({ id: archived }) },
  { name: 'cluster list', tool: 'list_clusters', args: () => ({ state: 'all' }) },
  { name: 'cluster detail and samples', tool: 'get_cluster', args: () => ({ id: clusterId }) },
  { name: "a source's alarms and SLA", tool: 'source_alarms', args: () => ({ source: 'orders' }) },
  { name: 'alarm explained', tool: 'explain_alarm', args: () => ({ source: 'orders' }) },
  { name: 'redrive preview', tool: 'preview_redrive', args: () => ({ selection: { ids: [open] } }) },
];

/** Reading tools that return no dead-letter content, each with why. */
const TOOL_NOT_READERS: Record<string, string> = {
  get_redrive: 'a task: counts, settings, selection (ids or a filter), reasons written by people',
};

describe("the assistant's readers", () => {
  it('covers every tool that reads: a new one needs an entry (or a reason it reads nothing)', () => {
    const covered = new Set(TOOL_READERS.map((r) => r.tool));
    expect(ASSISTANT_TOOLS.filter((t) => !t.action && !covered.has(t.name) && !(t.name in TOOL_NOT_READERS)).map((t) => t.name)).toEqual([]);
  });

  describe.each(TOOL_READERS.map((r) => [r.name, r] as const))('%s', (_name, reader) => {
    it.each(ROLES.map((r) => [r] as const))('%s: no masked value, and no reveal', async (role: Role) => {
      const as = fx.users[ACTING[role]]!;
      const before = await reveals(as.id);
      const answer = await callTool(assistants.clients[role], reader.tool, reader.args());
      const body = answerText(answer);
      expect((await reveals(as.id)) - before, 'reveal events written by a reader').toBe(0);
      if (answer.isError) return expect(body).toMatch(/"status":(403|404|422)/); // refused: nothing shown
      for (const secret of SECRETS) expect(body, `${role} reaches ${secret} via the assistant's ${reader.name}`).not.toContain(secret);
    });
  });
});
