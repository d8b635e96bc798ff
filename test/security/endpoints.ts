// The security suite's entry points: every route handler and every server action, with the
// permission it requires from the one permission map (lib/auth/permissions.ts) and how to make a
// valid call against the fixtures. The matrix (role × entry → allowed exactly as PERMISSIONS says,
// else 403), the audit count, cross-team 404s and the cross-site checks are all generated from it,
// and a completeness test fails when a route or action exists under app/ without an entry.
//
// The routes are the API's one registry (lib/openapi/routes.ts: each api() handler with its method,
// path and permission), never a list of this suite's own: vitest reads the registry, the browser
// suite the OpenAPI document the app serves from it (each operation's x-permission). A new route is
// walked as every role without an edit here. This file adds only what the registry cannot say, in
// CALLS, keyed by 'METHOD /path', e.g.
//   calls('POST /api/v1/clusters/:id/split', clusterIn(own), { crossTeam: clusterIn(other) }),
// `call` builds a valid request against fresh data of the caller's own team (fixtures.ts has the
// builders; a route without an entry fails for every role allowed to call it, and the refused roles
// get the bare call: no body, each :param a value that names nothing);
// `crossTeam` the same against the other team's data (expect 404, state unchanged), required for
// every route whose permission has a 'team' scope for some role, or `{ none: why }`; `audits` when an allowed call
// writes other than one event (reads: 0); `scope: 'all'` when only roles with the 'all' scope of
// the permission may call it; `permission` when the handler checks more than api() was given.
// Routes outside the permission map go into EXEMPT_ROUTES with the reason.
import { createPersonalToken } from '@/lib/admin/tokens';
import { createUser } from '@/lib/admin/users';
import { SYSTEM, type Permission } from '@/lib/auth';
import {
  newAuditBreak,
  newCluster,
  newConnectorSource,
  newMergedCluster,
  newSplittableCluster,
  newDeadLetter,
  newRedriveRule,
  newEditedDeadLetter,
  newView,
  newRedriveTask,
  newSource,
  newWebhook,
  otherTeamSource,
  ownSource,
  type Fixtures,
  type FixtureUser,
  unique,
} from './fixtures';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A permission of the map; 'authenticated': any signed-in role. */
export type Requirement = Permission | 'authenticated';

export interface CallSpec {
  /** Values for the path template's :params. */
  params?: Record<string, string>;
  /** JSON body (mutations). */
  body?: unknown;
  /** Query string (reads). */
  query?: Record<string, string>;
}

/** An operation of the API's registry: its method, path template and what api() checks. */
export interface Operation {
  method: Method;
  /** As under app/: /api/v1/sources/:id for app/api/v1/sources/[id]/route.ts. */
  path: string;
  permission: Requirement | 'ingest-token';
}

export interface RouteEntry extends Operation {
  permission: Requirement;
  /** Only roles with the 'all' scope of the permission may call it (e.g. verifying the whole chain). */
  scope?: 'all';
  /** A valid call by `as` on data `as` may touch (its own team's). */
  call: (fx: Fixtures, as: FixtureUser) => Promise<CallSpec>;
  /**
   * A call by `as` on another team's object: a team-scoped role must get 404, never 403 or the object
   * (or CrossTeamSpec.expect). Required when the permission has a
   * 'team' scope for some role; `{ none: why }` where no other team's object can be named.
   */
  crossTeam?: CrossTeam;
  /** Audit events an allowed call writes: 1 for a mutation (default), 0 for a read (default). */
  audits?: number;
  /** False when CALLS has no entry for it: the call is the bare one. */
  described: boolean;
}

/** How a team-scoped role is kept off another team's object (see RouteEntry.crossTeam). */
export type CrossTeamCall = (fx: Fixtures, as: FixtureUser) => Promise<CrossTeamSpec>;
export interface CrossTeamSpec extends CallSpec {
  /** 'empty': 200 with every list empty and any count 0; 422: the body names the other team. Else 404. */
  expect?: 'empty' | 422;
  /** Audit events the refused call writes: 0, but a bulk decision records its empty selection. */
  audits?: number;
}
export type CrossTeam = CrossTeamCall | { none: string };

/** What the registry cannot say about a route: how to call it validly (and across teams), what it audits. */
export type CallBuilder = Pick<RouteEntry, 'call'> &
  Partial<Pick<RouteEntry, 'crossTeam' | 'audits' | 'scope'>> & {
    /** The permission the call's input needs, where the handler checks more than api() was given. */
    permission?: Requirement;
  };

export interface ActionEntry {
  /** File under app/ that declares 'use server'. */
  file: string;
  name: string;
  /** Tells apart entries of one action whose permission depends on its input (archive / discard). */
  variant?: string;
  permission: Requirement;
  /** The form fields of a valid call by `as`. Actions take (previousState, formData). */
  form: (fx: Fixtures, as: FixtureUser) => Promise<Record<string, string>>;
  audits?: number;
}

export interface Exempt {
  why: string;
}

const MUTATING = new Set<Method>(['POST', 'PUT', 'PATCH', 'DELETE']);
export const isMutating = (e: Operation) => MUTATING.has(e.method);
export const expectedAudits = (e: RouteEntry) => e.audits ?? (isMutating(e) ? 1 : 0);

function calls(key: string, call: RouteEntry['call'] = async () => ({}), more: Omit<CallBuilder, 'call'> = {}): [string, CallBuilder] {
  return [key, { call, ...more }];
}

const newUserBody = () => ({ email: `${unique('user')}@triage.local`, role: 'support', team: 'commerce', password: 'a-long-password' });

async function throwawayUser() {
  return createUser({ ...SYSTEM, label: 'security-suite' }, { email: `${unique('target')}@triage.local`, role: 'support', team: 'commerce' });
}

const own = (fx: Fixtures, as: FixtureUser) => ownSource(fx, as);
const other = (fx: Fixtures, as: FixtureUser) => otherTeamSource(fx, as);
const reason = 'security suite';
const deadLetterIn = (pick: typeof own) => async (fx: Fixtures, as: FixtureUser) => ({ params: { id: await newDeadLetter(pick(fx, as)) }, body: { reason } });
const webhookIn = (pick: typeof own, body?: unknown) => async (fx: Fixtures, as: FixtureUser) => ({ params: { id: await newWebhook(pick(fx, as)) }, body });
const clusterIn = (pick: typeof own) => async (fx: Fixtures, as: FixtureUser) => ({ params: { id: await newCluster(pick(fx, as)) }, body: { reason } });
const taskIn = (pick: typeof own, status?: Parameters<typeof newRedriveTask>[1]) => async (fx: Fixtures, as: FixtureUser) => ({
  params: { id: await newRedriveTask(pick(fx, as), status) },
  body: { reason },
});
const sourceIn = (pick: typeof own, body?: () => unknown) => async (fx: Fixtures, as: FixtureUser) => ({
  params: { source: pick(fx, as).name },
  body: body?.(),
});
const ruleIn = (pick: typeof own, body?: () => unknown) => async (fx: Fixtures, as: FixtureUser) => ({
  params: { source: pick(fx, as).name, rule: await newRedriveRule(pick(fx, as)) },
  body: body?.(),
});
const connectorIn =
  (pick: typeof own, opts: { paused?: boolean } = {}, body?: () => unknown) =>
  async (fx: Fixtures, as: FixtureUser) => ({
    params: { source: (await newConnectorSource(pick(fx, as), opts)).name },
    body: body?.(),
  });
// An edit redrives one item, and a source holds one active task: each call gets a fresh source.
const editIn = (pick: typeof own) => async (fx: Fixtures, as: FixtureUser) => ({
  params: { id: await newDeadLetter(pick === own ? await newSource(own(fx, as)) : pick(fx, as)) },
  body: { payload: '{"order":2}', reason },
});
const GIFT_REMOVED = [{ op: 'set', path: '$.order', value: 2 }];
const self = (_fx: Fixtures, as: FixtureUser) => as;
// The support engineer of the team the caller is not in: their view is shared with that team only.
const otherTeamsUser = (fx: Fixtures, as: FixtureUser) => fx.users[as.teamId === fx.teams.finance ? 'support@triage.local' : 'finance-support@triage.local']!;
const viewOf = (whose: typeof self, body?: () => unknown) => async (fx: Fixtures, as: FixtureUser) => ({
  params: { id: await newView(whose(fx, as)) },
  body: body?.(),
});
// A bulk decision or preview of another team's dead letter: 200, nothing selected (a decision
// records its empty selection in the audit trail).
const bulkIn = (pick: typeof own, more: () => Record<string, unknown>, audits: number) => async (fx: Fixtures, as: FixtureUser) => ({
  ...(await selectionIn(pick, more)(fx, as)),
  expect: 'empty' as const,
  audits,
});
// A selection of one dead letter of `pick`'s team (a fresh source: one active redrive task a source).
const selectionIn = (pick: typeof own, more: () => Record<string, unknown>) => async (fx: Fixtures, as: FixtureUser) => ({
  body: { selection: { ids: [await newDeadLetter(await newSource(pick(fx, as)))] }, ...more() },
});
// Lists and creations that name no object: the caller's team is the only one they reach.
const LIST = { none: "a list: no other team's object is named, lib scopes it to the caller's teams" };
// Each call changes the deadline, so each one is a change (and an audit event).
const newDeadline = () => ({ ageDeadlineSeconds: 5 * 86400 + Math.floor(Math.random() * 86400) });

/** By the registry's route key ('METHOD /path'). */
export const CALLS = new Map<string, CallBuilder>([
  // Admin
  calls('GET /api/v1/users'),
  calls('POST /api/v1/users', async () => ({ body: newUserBody() })),
  calls('GET /api/v1/sources', undefined, { crossTeam: LIST }),
  calls('POST /api/v1/sources', async () => ({
    body: { name: unique('src'), team: 'commerce', kind: 'builtin' },
  })),

  // Audit trail
  calls('GET /api/v1/audit/verify', undefined, { scope: 'all' }),
  calls('POST /api/v1/audit/breaks/:id/acknowledge', async () => ({
    params: { id: await newAuditBreak() },
    body: { reason },
  })),
  calls('GET /api/v1/audit/export', async () => ({ query: { format: 'ndjson', action: 'source.' } }), {
    audits: 1,
    crossTeam: { none: "a lead's export holds the lead's team's events only; the filter narrows, it never widens" },
  }),

  // Dead letters
  calls('GET /api/metrics', undefined, { crossTeam: { none: "counts of the caller's sources only; no object is named" } }),
  calls('GET /api/v1/dead-letters', undefined, {
    crossTeam: async (fx, as) => ({ query: { source: other(fx, as).name }, expect: 'empty' }),
  }),
  calls(
    'GET /api/v1/dead-letters/export',
    async (fx, as) => ({
      query: { format: 'ndjson', source: own(fx, as).name },
    }),
    { audits: 1, crossTeam: { none: "an export of the caller's sources: the filter narrows, it never widens" } },
  ),
  // A revealing export of an empty selection: nothing revealed, so the export's own event only.
  calls(
    'POST /api/v1/dead-letters/export',
    async (fx, as) => ({
      query: { format: 'ndjson', source: own(fx, as).name, messageId: 'no-such-message' },
      body: { revealReason: reason },
    }),
    { crossTeam: { none: "an export of the caller's sources: the filter narrows, it never widens" } },
  ),
  calls('GET /api/v1/dead-letters/:id', deadLetterIn(own), {
    crossTeam: deadLetterIn(other),
  }),
  calls('GET /api/v1/dead-letters/:id/payload', deadLetterIn(own), {
    crossTeam: deadLetterIn(other),
  }),
  calls('POST /api/v1/dead-letters/:id/archive', deadLetterIn(own), {
    crossTeam: deadLetterIn(other),
  }),
  calls('POST /api/v1/dead-letters/:id/discard', deadLetterIn(own), {
    crossTeam: deadLetterIn(other),
  }),
  calls('POST /api/v1/dead-letters/:id/reveal', deadLetterIn(own), {
    crossTeam: deadLetterIn(other),
  }),
  calls(
    'POST /api/v1/dead-letters/search-reveal',
    async () => ({
      body: { reason },
    }),
    { crossTeam: { none: "reveals the search's matches among the caller's sources; no object is named" } },
  ),
  calls('POST /api/v1/dead-letters/:id/edit', editIn(own), {
    crossTeam: editIn(other),
  }),
  calls('GET /api/v1/dead-letters/:id/versions', deadLetterIn(own), {
    crossTeam: deadLetterIn(other),
  }),
  calls(
    'GET /api/v1/dead-letters/:id/versions/:version/payload',
    async (fx, as) => ({
      params: { id: await newEditedDeadLetter(own(fx, as)), version: '1' },
    }),
    {
      crossTeam: async (fx, as) => ({ params: { id: await newEditedDeadLetter(other(fx, as)), version: '1' } }),
    },
  ),
  calls(
    'POST /api/v1/dead-letters/bulk/archive',
    async (fx, as) => ({
      body: { selection: { ids: [await newDeadLetter(own(fx, as))] }, reason },
    }),
    { crossTeam: bulkIn(other, () => ({ reason }), 1) },
  ),
  calls(
    'POST /api/v1/dead-letters/bulk/discard',
    async (fx, as) => ({
      body: { selection: { ids: [await newDeadLetter(own(fx, as))] }, reason },
    }),
    { crossTeam: bulkIn(other, () => ({ reason }), 1) },
  ),
  // A read (a count), but of what the caller would be allowed to decide: the decision's permission.
  calls(
    'POST /api/v1/dead-letters/bulk/preview',
    async (fx, as) => ({
      body: { decision: 'archive', selection: { ids: [await newDeadLetter(own(fx, as))] } },
    }),
    { audits: 0, permission: 'deadletters.archive', crossTeam: bulkIn(other, () => ({ decision: 'archive' }), 0) },
  ),

  // Clusters
  calls('GET /api/v1/clusters', undefined, { crossTeam: LIST }),
  calls('GET /api/v1/clusters/:id', clusterIn(own), { crossTeam: clusterIn(other) }),
  calls('POST /api/v1/clusters/:id/archive', clusterIn(own), {
    crossTeam: clusterIn(other),
  }),
  calls(
    'POST /api/v1/clusters/:id/merge',
    async (fx, as) => ({
      params: { id: await newCluster(own(fx, as)) },
      body: { into: await newCluster(own(fx, as)), reason },
    }),
    {
      crossTeam: async (fx, as) => ({ params: { id: await newCluster(other(fx, as)) }, body: { into: await newCluster(other(fx, as)), reason } }),
    },
  ),
  calls(
    'POST /api/v1/clusters/:id/split/preview',
    async (fx, as) => ({
      params: { id: await newSplittableCluster(own(fx, as)) },
      body: { by: { field: 'payload', path: '$.type' } },
    }),
    {
      crossTeam: async (fx, as) => ({ params: { id: await newSplittableCluster(other(fx, as)) }, body: { by: { field: 'payload', path: '$.type' } } }),
      audits: 0,
    },
  ),
  calls(
    'POST /api/v1/clusters/:id/split',
    async (fx, as) => ({
      params: { id: await newSplittableCluster(own(fx, as)) },
      body: { by: { field: 'payload', path: '$.type' }, reason },
    }),
    {
      crossTeam: async (fx, as) => ({ params: { id: await newSplittableCluster(other(fx, as)) }, body: { by: { field: 'payload', path: '$.type' }, reason } }),
    },
  ),
  calls(
    'POST /api/v1/clusters/:id/unmerge',
    async (fx, as) => ({
      params: { id: await newMergedCluster(own(fx, as)) },
      body: { reason },
    }),
    {
      crossTeam: async (fx, as) => ({ params: { id: await newMergedCluster(other(fx, as)) }, body: { reason } }),
    },
  ),
  calls('GET /api/v1/clusters/:id/merge-suggestions', clusterIn(own), {
    crossTeam: clusterIn(other),
  }),
  calls('GET /api/v1/clusters/:id/ownership', clusterIn(own), {
    crossTeam: clusterIn(other),
  }),
  calls(
    'PATCH /api/v1/clusters/:id/ownership',
    async (fx, as) => ({
      params: { id: await newCluster(own(fx, as)) },
      body: { status: 'investigating', note: reason },
    }),
    {
      crossTeam: async (fx, as) => ({ params: { id: await newCluster(other(fx, as)) }, body: { status: 'investigating' } }),
    },
  ),
  calls(
    'POST /api/v1/clusters/:id/notes',
    async (fx, as) => ({
      params: { id: await newCluster(own(fx, as)) },
      body: { body: reason },
    }),
    {
      crossTeam: async (fx, as) => ({ params: { id: await newCluster(other(fx, as)) }, body: { body: reason } }),
    },
  ),

  // Redrives
  calls('GET /api/v1/redrives', undefined, {
    crossTeam: async (fx, as) => ({ query: { source: other(fx, as).name }, expect: 'empty' }),
  }),
  calls(
    'POST /api/v1/redrives',
    selectionIn(own, () => ({ ratePerSecond: 1, reason })),
    {
      crossTeam: selectionIn(other, () => ({ ratePerSecond: 1, reason })),
    },
  ),
  calls(
    'GET /api/v1/redrives/preview',
    async (fx, as) => ({
      query: { ids: await newDeadLetter(own(fx, as)) },
    }),
    { crossTeam: async (fx, as) => ({ query: { ids: await newDeadLetter(other(fx, as)) } }) },
  ),
  calls(
    'POST /api/v1/redrives/transform',
    selectionIn(own, () => ({ transform: GIFT_REMOVED, reason })),
    {
      crossTeam: selectionIn(other, () => ({ transform: GIFT_REMOVED, reason })),
    },
  ),
  // A read of what would change, by those who may make the change.
  calls(
    'POST /api/v1/redrives/transform/preview',
    async (fx, as) => ({
      body: { selection: { ids: [await newDeadLetter(own(fx, as))] }, transform: GIFT_REMOVED },
    }),
    { audits: 0, crossTeam: selectionIn(other, () => ({ transform: GIFT_REMOVED })) },
  ),
  calls('GET /api/v1/redrives/:id', taskIn(own), { crossTeam: taskIn(other) }),
  calls('GET /api/v1/redrives/:id/series', taskIn(own), {
    crossTeam: taskIn(other),
  }),
  calls('POST /api/v1/redrives/:id/pause', taskIn(own), {
    crossTeam: taskIn(other),
  }),
  calls('POST /api/v1/redrives/:id/resume', taskIn(own, 'paused'), {
    crossTeam: taskIn(other, 'paused'),
  }),
  calls('POST /api/v1/redrives/:id/cancel', taskIn(own), {
    crossTeam: taskIn(other),
  }),
  calls('POST /api/v1/redrives/:id/approve', taskIn(own, 'pending_approval'), {
    crossTeam: taskIn(other, 'pending_approval'),
  }),

  // Sources
  calls('GET /api/v1/sources/:source/dead-letters', sourceIn(own), {
    crossTeam: async (fx, as) => ({ params: { source: other(fx, as).name }, expect: 'empty' }),
  }),
  calls('GET /api/v1/sources/:source/alarms', sourceIn(own), {
    crossTeam: sourceIn(other),
  }),
  calls('GET /api/v1/sources/:source/policy', sourceIn(own), {
    crossTeam: sourceIn(other),
  }),
  calls('PATCH /api/v1/sources/:source/policy', sourceIn(own, newDeadline), {
    crossTeam: sourceIn(other, newDeadline),
  }),
  calls('GET /api/v1/sources/:source', connectorIn(own), {
    crossTeam: connectorIn(other),
  }),
  calls(
    'PATCH /api/v1/sources/:source',
    connectorIn(own, {}, () => ({
      connection: { prefetch: 100 + Math.floor(Math.random() * 900), sourceQueue: 'sec.work' },
    })),
  ),
  // A read of the broker (nothing changes), by those who operate the import.
  calls('POST /api/v1/sources/:source/connection-test', connectorIn(own), {
    crossTeam: connectorIn(other),
    audits: 0,
  }),
  calls(
    'POST /api/v1/sources/:source/import/pause',
    connectorIn(own, {}, () => ({ reason })),
    {
      crossTeam: connectorIn(other),
    },
  ),
  calls('POST /api/v1/sources/:source/import/resume', connectorIn(own, { paused: true }), {
    crossTeam: connectorIn(other, { paused: true }),
  }),
  calls('GET /api/v1/sources/:source/grouping-rules', sourceIn(own), {
    crossTeam: sourceIn(other),
  }),
  // A fresh source each time: rules on a shared fixture source would regroup the other entries' dead letters.
  calls(
    'PUT /api/v1/sources/:source/grouping-rules',
    async (fx, as) => ({
      params: { source: (await newSource(own(fx, as))).name },
      body: { rules: { groupBy: [{ field: 'payload', path: '$.type' }] }, reason },
    }),
    {
      crossTeam: async (fx, as) => ({
        params: { source: (await newSource(other(fx, as))).name },
        body: { rules: { groupBy: [{ field: 'payload', path: '$.type' }] }, reason },
      }),
    },
  ),
  calls('GET /api/v1/sources/:source/redrive-rules', sourceIn(own), {
    crossTeam: sourceIn(other),
  }),
  calls(
    'POST /api/v1/sources/:source/redrive-rules',
    sourceIn(own, () => ({ name: unique('rule'), kind: 'on_resolved' })),
    {
      crossTeam: sourceIn(other, () => ({ name: unique('rule'), kind: 'on_resolved' })),
    },
  ),
  calls(
    'PATCH /api/v1/sources/:source/redrive-rules/:rule',
    ruleIn(own, () => ({ ratePerSecond: 12 })),
    {
      crossTeam: ruleIn(other, () => ({ ratePerSecond: 12 })),
    },
  ),
  calls('DELETE /api/v1/sources/:source/redrive-rules/:rule', ruleIn(own), {
    crossTeam: ruleIn(other),
  }),
  calls('GET /api/v1/sources/:source/grouping-rules/reapply', sourceIn(own), {
    crossTeam: sourceIn(other),
  }),
  calls(
    'POST /api/v1/sources/:source/grouping-rules/reapply',
    async (fx, as) => ({
      params: { source: (await newSource(own(fx, as))).name },
      body: { reason },
    }),
    {
      crossTeam: async (fx, as) => ({ params: { source: (await newSource(other(fx, as))).name }, body: { reason } }),
    },
  ),

  // Saved views: a view of the caller's own, or (crossTeam) another team's shared one, which is a 404.
  calls('GET /api/v1/views', undefined, { crossTeam: LIST }),
  calls(
    'POST /api/v1/views',
    async () => ({
      body: { page: 'dead_letters', name: unique('view'), filters: 'status=open' },
    }),
    { crossTeam: { none: "a new view is the caller's own; no other team's object is named" } },
  ),
  calls('GET /api/v1/views/:id', viewOf(self), { crossTeam: viewOf(otherTeamsUser) }),
  calls(
    'PATCH /api/v1/views/:id',
    viewOf(self, () => ({ name: unique('renamed') })),
    {
      crossTeam: viewOf(otherTeamsUser, () => ({ name: unique('renamed') })),
    },
  ),
  calls('DELETE /api/v1/views/:id', viewOf(self), { crossTeam: viewOf(otherTeamsUser) }),

  // Webhooks
  calls('GET /api/v1/webhooks', undefined, { crossTeam: LIST }),
  calls(
    'POST /api/v1/webhooks',
    async () => ({
      body: { url: 'http://127.0.0.1:9/hook', team: 'commerce' },
    }),
    {
      crossTeam: async (fx, as) => ({
        body: { url: 'http://127.0.0.1:9/hook', team: as.teamId === fx.teams.finance ? 'commerce' : 'finance' },
        expect: 422,
      }),
    },
  ),
  calls('PATCH /api/v1/webhooks/:id', webhookIn(own, { enabled: false }), {
    crossTeam: webhookIn(other, { enabled: false }),
  }),
  calls('DELETE /api/v1/webhooks/:id', webhookIn(own), { crossTeam: webhookIn(other) }),
  calls('POST /api/v1/webhooks/:id/test', webhookIn(own), {
    crossTeam: webhookIn(other),
  }),
  calls('GET /api/v1/webhooks/:id/deliveries', webhookIn(own), { crossTeam: webhookIn(other) }),
]);

/** Routes outside the permission map, and why. */
export const EXEMPT_ROUTES: Record<string, Exempt> = {
  'GET /api/health': { why: 'public liveness probe, no data' },
  'GET /api/v1/openapi': { why: 'public: the API description grants nothing' },
  'GET /api/v1/openapi.json': { why: 'public: the API description grants nothing' },
  'GET /api/auth/*': { why: 'Auth.js: sign-in, sign-out, session (its own CSRF token)' },
  'POST /api/auth/*': { why: 'Auth.js: sign-in, sign-out, session (its own CSRF token)' },
  'POST /api/v1/sources/:source/dead-letters': { why: "ingest: an ingest token of that one source, never a user's cookie (lib/ingest)" },
  'POST /api/v1/sources/:source/dead-letters/raw': { why: "ingest: an ingest token of that one source, never a user's cookie (lib/ingest)" },
  'POST /api/mcp': { why: 'the MCP transport: each of its tools is an entry of TOOLS below, walked as every role by assistant-matrix.test.ts' },
  'GET /api/mcp': { why: 'the MCP transport: 405, no stream is kept' },
  'DELETE /api/mcp': { why: 'the MCP transport: 405, no session is kept' },
};

export const routeKey = (e: { method: string; path: string }) => `${e.method} ${e.path}`;

/** A value for a path parameter that names no row: the call of a route CALLS does not describe. */
const NOTHING = '0';
const bareCall = (path: string) => async (): Promise<CallSpec> => {
  const names = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  return names.length ? { params: Object.fromEntries(names.map((n) => [n, NOTHING])) } : {};
};

/**
 * The registry's operations (from lib/openapi/routes.ts, or from the served document) as entries of
 * the matrix: those a user calls (not an ingest token's, not exempt), each with its CALLS entry or
 * else the bare call. Anything else an operation carries (vitest: its handler) is kept.
 */
export function routeEntries<O extends Operation>(operations: O[]): (O & RouteEntry)[] {
  return operations
    .filter((o) => o.permission !== 'ingest-token' && !(routeKey(o) in EXEMPT_ROUTES))
    .map((o) => {
      const described = CALLS.get(routeKey(o));
      const { call = bareCall(o.path), permission = o.permission as Requirement, ...more } = described ?? {};
      return { ...o, ...more, permission, call, described: described !== undefined };
    });
}

const ADMIN = 'app/(dashboard)/admin/actions.ts';
const DEAD_LETTERS = 'app/(dashboard)/dead-letters/actions.ts';
const CLUSTERS = 'app/(dashboard)/clusters/[id]/actions.ts';
const OWNERSHIP = 'app/(dashboard)/clusters/[id]/ownership-actions.ts';
const WEBHOOKS = 'app/(dashboard)/settings/webhooks/actions.ts';
const SOURCES = 'app/(dashboard)/sources/[source]/actions.ts';
const VIEWS = 'app/(dashboard)/views/actions.ts';
const CORRECTIONS = 'app/(dashboard)/clusters/[id]/correction-actions.ts';
const GROUPING = 'app/(dashboard)/sources/[source]/grouping-actions.ts';
const REDRIVE_RULES = 'app/(dashboard)/sources/[source]/redrive-rules-actions.ts';
const CONNECTORS = 'app/(dashboard)/sources/[source]/connector-actions.ts';
const AUDIT_VERIFY = 'app/(dashboard)/audit/verify/actions.ts';
const suite = { ...SYSTEM, label: 'security-suite' };

export const ACTIONS: ActionEntry[] = [
  { file: AUDIT_VERIFY, name: 'acknowledgeBreakAction', permission: 'admin.manage', form: async () => ({ id: await newAuditBreak(), reason }) },
  { file: ADMIN, name: 'createTeamAction', permission: 'admin.manage', form: async () => ({ name: unique('team') }) },
  {
    file: ADMIN,
    name: 'createUserAction',
    permission: 'admin.manage',
    form: async () => ({ email: `${unique('user')}@triage.local`, role: 'support', team: 'commerce', password: 'a-long-password' }),
  },
  {
    file: ADMIN,
    name: 'updateUserAction',
    permission: 'admin.manage',
    form: async () => ({ userId: (await throwawayUser()).id, role: 'lead', team: 'commerce', disabled: 'false' }),
  },
  { file: ADMIN, name: 'createSourceAction', permission: 'admin.manage', form: async () => ({ name: unique('src'), team: 'commerce', kind: 'builtin' }) },
  {
    file: ADMIN,
    name: 'createSourceAction',
    variant: 'rabbitmq',
    permission: 'admin.manage',
    form: async () => ({
      name: unique('src'),
      team: 'commerce',
      kind: 'rabbitmq',
      'secret.url': 'amqp://guest:guest@127.0.0.1:5672',
      'connection.queue': 'orders.dlq',
    }),
  },
  {
    file: ADMIN,
    name: 'updateConnectionAction',
    permission: 'admin.manage',
    form: async (fx, as) => ({
      source: (await newConnectorSource(own(fx, as))).name,
      kind: 'rabbitmq',
      'connection.queue': unique('other.dlq'),
      'secret.url': 'amqp://guest:guest@localhost:5672',
    }),
  },
  { file: ADMIN, name: 'createTokenAction', permission: 'admin.manage', form: async () => ({ source: 'orders' }) },
  { file: ADMIN, name: 'setAssistantRolesAction', permission: 'admin.manage', form: async () => ({ roles: 'support' }) },
  {
    file: ADMIN,
    name: 'revokeTokenAction',
    permission: 'admin.manage',
    form: async () => ({ tokenId: (await createPersonalToken(suite, (await throwawayUser()).email)).id }),
  },

  {
    file: DEAD_LETTERS,
    name: 'decideAction',
    variant: 'archive',
    permission: 'deadletters.archive',
    form: async (fx, as) => ({ decision: 'archive', id: await newDeadLetter(own(fx, as)), reason }),
  },
  {
    file: DEAD_LETTERS,
    name: 'decideAction',
    variant: 'discard',
    permission: 'deadletters.discard',
    form: async (fx, as) => ({ decision: 'discard', id: await newDeadLetter(own(fx, as)), reason }),
  },
  { file: DEAD_LETTERS, name: 'revealAction', permission: 'payload.reveal', form: async (fx, as) => ({ id: await newDeadLetter(own(fx, as)), reason }) },
  { file: DEAD_LETTERS, name: 'searchRevealAction', permission: 'payload.reveal', form: async () => ({ filter: 'q=card', reason }) },
  {
    file: DEAD_LETTERS,
    name: 'bulkAction',
    variant: 'archive',
    permission: 'deadletters.archive',
    form: async (fx, as) => ({ intent: 'archive', ids: await newDeadLetter(own(fx, as)), reason }),
  },
  {
    file: DEAD_LETTERS,
    name: 'bulkAction',
    variant: 'discard',
    permission: 'deadletters.discard',
    form: async (fx, as) => ({ intent: 'discard', ids: await newDeadLetter(own(fx, as)), reason }),
  },
  {
    file: DEAD_LETTERS,
    name: 'bulkAction',
    variant: 'preview',
    permission: 'deadletters.archive',
    audits: 0,
    form: async (fx, as) => ({ intent: 'preview:archive', ids: await newDeadLetter(own(fx, as)) }),
  },

  {
    file: CLUSTERS,
    name: 'archiveClusterAction',
    permission: 'deadletters.archive',
    form: async (fx, as) => ({ clusterId: await newCluster(own(fx, as)), reason }),
  },
  {
    file: CLUSTERS,
    name: 'mergeClusterAction',
    permission: 'clusters.merge',
    form: async (fx, as) => ({ clusterId: await newCluster(own(fx, as)), into: await newCluster(own(fx, as)), reason }),
  },
  {
    file: CORRECTIONS,
    name: 'splitClusterAction',
    variant: 'preview',
    permission: 'clusters.split',
    audits: 0,
    form: async (fx, as) => ({ clusterId: await newSplittableCluster(own(fx, as)), field: 'payload', path: '$.type', intent: 'preview' }),
  },
  {
    file: CORRECTIONS,
    name: 'splitClusterAction',
    variant: 'split',
    permission: 'clusters.split',
    form: async (fx, as) => ({ clusterId: await newSplittableCluster(own(fx, as)), field: 'payload', path: '$.type', intent: 'split', reason }),
  },
  {
    file: CORRECTIONS,
    name: 'undoMergeAction',
    permission: 'clusters.split',
    form: async (fx, as) => ({ mergedId: await newMergedCluster(own(fx, as)), reason }),
  },
  {
    file: CORRECTIONS,
    name: 'acceptMergeSuggestionAction',
    permission: 'clusters.merge',
    form: async (fx, as) => ({ clusterId: await newCluster(own(fx, as)), suggestedId: await newCluster(own(fx, as)), evidence: 'security suite' }),
  },
  {
    file: GROUPING,
    name: 'saveGroupingRulesAction',
    permission: 'sources.grouping',
    form: async (fx, as) => ({ source: (await newSource(own(fx, as))).name, paths: '$.type', headers: '', positions: '', reason }),
  },
  {
    file: REDRIVE_RULES,
    name: 'createRedriveRuleAction',
    permission: 'redrive.rules',
    form: async (fx, as) => ({ source: own(fx, as).name, name: unique('rule'), kind: 'after_wave', okForMinutes: '5', ratePerSecond: '10', canary: 'on' }),
  },
  {
    file: REDRIVE_RULES,
    name: 'toggleRedriveRuleAction',
    permission: 'redrive.rules',
    form: async (fx, as) => ({ source: own(fx, as).name, rule: await newRedriveRule(own(fx, as)), enabled: 'false' }),
  },
  {
    file: REDRIVE_RULES,
    name: 'deleteRedriveRuleAction',
    permission: 'redrive.rules',
    form: async (fx, as) => ({ source: own(fx, as).name, rule: await newRedriveRule(own(fx, as)) }),
  },
  {
    file: GROUPING,
    name: 'reapplyGroupingRulesAction',
    permission: 'sources.grouping',
    form: async (fx, as) => ({ source: (await newSource(own(fx, as))).name, reason }),
  },

  {
    file: OWNERSHIP,
    name: 'updateOwnershipAction',
    permission: 'clusters.own',
    form: async (fx, as) => ({ clusterId: await newCluster(own(fx, as)), status: 'investigating' }),
  },
  {
    file: OWNERSHIP,
    name: 'addClusterNoteAction',
    permission: 'clusters.own',
    form: async (fx, as) => ({ clusterId: await newCluster(own(fx, as)), body: reason }),
  },

  { file: WEBHOOKS, name: 'createWebhookAction', permission: 'sources.policy', form: async () => ({ url: 'http://127.0.0.1:9/hook', team: 'commerce' }) },
  {
    file: WEBHOOKS,
    name: 'setWebhookEnabledAction',
    permission: 'sources.policy',
    form: async (fx, as) => ({ id: await newWebhook(own(fx, as)), enabled: 'false' }),
  },
  { file: WEBHOOKS, name: 'deleteWebhookAction', permission: 'sources.policy', form: async (fx, as) => ({ id: await newWebhook(own(fx, as)) }) },
  { file: WEBHOOKS, name: 'testWebhookAction', permission: 'sources.policy', form: async (fx, as) => ({ id: await newWebhook(own(fx, as)) }) },

  {
    file: CONNECTORS,
    name: 'testConnectionAction',
    permission: 'sources.import',
    audits: 0,
    form: async (fx, as) => ({ source: (await newConnectorSource(own(fx, as))).name }),
  },
  {
    file: CONNECTORS,
    name: 'setImportPausedAction',
    variant: 'pause',
    permission: 'sources.import',
    form: async (fx, as) => ({ source: (await newConnectorSource(own(fx, as))).name, paused: 'true', reason }),
  },
  {
    file: CONNECTORS,
    name: 'setImportPausedAction',
    variant: 'resume',
    permission: 'sources.import',
    form: async (fx, as) => ({ source: (await newConnectorSource(own(fx, as), { paused: true })).name, paused: 'false' }),
  },
  { file: VIEWS, name: 'saveViewAction', permission: 'views.manage', form: async () => ({ page: 'inbox', name: unique('view'), filters: 'owner=mine' }) },
  { file: VIEWS, name: 'updateViewAction', permission: 'views.manage', form: async (_fx, as) => ({ id: await newView(as), name: unique('renamed') }) },
  { file: VIEWS, name: 'deleteViewAction', permission: 'views.manage', form: async (_fx, as) => ({ id: await newView(as) }) },
  {
    file: SOURCES,
    name: 'updatePolicyAction',
    permission: 'sources.policy',
    form: async (fx, as) => ({ source: own(fx, as).name, ageDeadlineHours: String(120 + Math.floor(Math.random() * 48)) }),
  },
];

/** Server actions outside the permission map, and why. */
export const EXEMPT_ACTIONS: Record<string, Exempt> = {
  'app/(auth)/sign-in/actions.ts#signInWithPassword': { why: 'public: the sign-in form (rate-limited, tested on its own)' },
  'app/(auth)/sign-in/actions.ts#signInWithOidc': { why: 'public: starts single sign-on' },
  'app/(dashboard)/actions.ts#signOutAction': { why: "ends the caller's own session; the sign-out replay test covers it" },
};

export const actionKey = (e: { file: string; name: string }) => `${e.file}#${e.name}`;
export const actionLabel = (e: ActionEntry) => (e.variant ? `${e.name} (${e.variant})` : e.name);

/** The URL path for a call: the template with its params filled in, plus the query. */
export function urlPath(e: Operation, spec: CallSpec): string {
  const path = e.path.replace(/:(\w+)/g, (_, k: string) => {
    const v = spec.params?.[k];
    if (v === undefined) throw new Error(`${routeKey(e)}: no value for :${k}`);
    return encodeURIComponent(v);
  });
  return spec.query ? `${path}?${new URLSearchParams(spec.query)}` : path;
}

/**
 * The assistant's MCP tools (lib/assistant/tools.ts) as entry points of the matrix: each with the
 * permission it requires from the map and a valid call's arguments, walked as every role through
 * /api/mcp by assistant-matrix.test.ts (a tool without an entry here fails it).
 */
export interface ToolEntry {
  name: string;
  permission: Permission;
  call: (fx: Fixtures, as: FixtureUser) => Promise<Record<string, unknown>>;
  crossTeam?: (fx: Fixtures, as: FixtureUser) => Promise<Record<string, unknown>>;
  /** Audit events an allowed call writes: 1 for an action, 0 for a read (default). */
  audits?: number;
}

const toolDeadLetterIn = (pick: typeof own) => async (fx: Fixtures, as: FixtureUser) => ({ id: await newDeadLetter(pick(fx, as)), reason });
const toolClusterIn = (pick: typeof own) => async (fx: Fixtures, as: FixtureUser) => ({ id: await newCluster(pick(fx, as)), reason });
const toolSourceIn = (pick: typeof own) => async (fx: Fixtures, as: FixtureUser) => ({ source: pick(fx, as).name });
const toolTaskIn = (pick: typeof own) => async (fx: Fixtures, as: FixtureUser) => ({ id: await newRedriveTask(pick(fx, as)) });

export const TOOLS: ToolEntry[] = [
  { name: 'search_dead_letters', permission: 'deadletters.read', call: async () => ({ status: 'open' }) },
  { name: 'get_dead_letter', permission: 'deadletters.read', call: toolDeadLetterIn(own), crossTeam: toolDeadLetterIn(other) },
  { name: 'list_clusters', permission: 'deadletters.read', call: async () => ({}) },
  { name: 'get_cluster', permission: 'deadletters.read', call: toolClusterIn(own), crossTeam: toolClusterIn(other) },
  { name: 'source_alarms', permission: 'deadletters.read', call: toolSourceIn(own), crossTeam: toolSourceIn(other) },
  { name: 'explain_alarm', permission: 'deadletters.read', call: toolSourceIn(own), crossTeam: toolSourceIn(other) },
  { name: 'preview_redrive', permission: 'deadletters.redrive', call: async (fx, as) => ({ selection: { ids: [await newDeadLetter(own(fx, as))] } }) },
  { name: 'get_redrive', permission: 'deadletters.read', call: toolTaskIn(own), crossTeam: toolTaskIn(other) },
  {
    name: 'start_redrive',
    permission: 'deadletters.redrive',
    call: async (fx, as) => ({ selection: { ids: [await newDeadLetter(await newSource(own(fx, as)))] }, ratePerSecond: 1, reason }),
    audits: 1,
  },
  { name: 'archive_dead_letter', permission: 'deadletters.archive', call: toolDeadLetterIn(own), crossTeam: toolDeadLetterIn(other), audits: 1 },
  { name: 'archive_cluster', permission: 'deadletters.archive', call: toolClusterIn(own), crossTeam: toolClusterIn(other), audits: 1 },
];
