// Saved views (docs/design.md "Saved views"): a page's filters under a name, private to its owner
// or shared with the owner's team. Who sees a view is in the query (owner, or shared and of the
// reader's team): anyone else's view answers 404. Only the owner changes or deletes it. Every change
// is one audit event in its transaction.
import { z } from 'zod';
import { append } from '@/lib/audit';
import { auditActor, authorize, can, isSystem, type Actor, type Principal } from '@/lib/auth';
import { systemClock, type Clock } from '@/lib/clock';
import { db, type Tx } from '@/lib/db';
import { changingSomething, isoTime, listOf } from '@/lib/wire';
import { AppError, forbidden, notFound, unprocessable } from '@/lib/errors';
import { VIEW_PAGE, VIEW_PAGES, normalizeFilters, viewHref, type ViewPage } from './pages';

const name = z.string().trim().min(1, 'a view needs a name').max(80);
const filters = z.union([z.string().max(4000), z.record(z.string(), z.union([z.string().max(1000), z.array(z.string().max(1000)).max(100)]))]);

export const createViewInput = z
  .object({
    page: z.enum(VIEW_PAGES).describe('dead_letters (/dead-letters), inbox (/inbox) or audit (/audit)'),
    name,
    filters: filters.optional().describe('The page\'s query string ("owner=mine&source=orders") or an object of its filters'),
    shared: z.boolean().default(false).describe('Shared with your team (you need a team)'),
    // The CLI acts as the system for a named user; a signed-in caller always saves their own view.
    owner: z.string().trim().max(320).optional().describe('CLI only: the e-mail of the user the view belongs to'),
  })
  .strict();
export type CreateViewInput = z.input<typeof createViewInput>;

export const updateViewInput = changingSomething(z.object({ name: name.optional(), filters: filters.optional(), shared: z.boolean().optional() }).strict());
export type UpdateViewInput = z.input<typeof updateViewInput>;

export const SavedViewView = z.object({
  id: z.uuid(),
  page: z.enum(VIEW_PAGES),
  name: z.string(),
  filters: z.string().describe("The page's normalized query string"),
  href: z.string().describe('Where it opens: the page with its filters'),
  shared: z.boolean(),
  owner: z.string(),
  mine: z.boolean(),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type SavedViewView = z.infer<typeof SavedViewView>;
export const SavedViewListView = listOf('views', SavedViewView);
export const OneSavedView = z.object({ view: SavedViewView });

interface Owner {
  userId: string;
  email: string;
  teamId: string | null;
  role: Actor['role'];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whose views: the caller; for the system (CLI), the user named by e-mail. */
async function ownerOf(actor: Principal, email: string | undefined): Promise<Owner> {
  if (!isSystem(actor)) {
    if (email !== undefined && email.toLowerCase() !== actor.email.toLowerCase()) throw forbidden('A view is saved as yourself');
    return { userId: actor.userId, email: actor.email, teamId: actor.teamId, role: actor.role };
  }
  if (!email) throw unprocessable('Name the user the view belongs to (owner)', { field: 'owner' });
  const u = await db().user.findFirst({
    where: { email: { equals: email, mode: 'insensitive' }, disabled: false },
    select: { id: true, email: true, teamId: true, role: true },
  });
  if (!u) throw unprocessable(`No user "${email}"`, { field: 'owner' });
  return { userId: u.id, email: u.email, teamId: u.teamId, role: u.role };
}

/** Views on pages the owner may open: a lead's shared audit view is not offered to support. */
const pagesFor = (o: Owner): ViewPage[] => VIEW_PAGES.filter((p) => can(o.role, VIEW_PAGE[p].permission));

function mayOpen(o: Owner, page: ViewPage) {
  if (!can(o.role, VIEW_PAGE[page].permission)) throw forbidden(`Your role cannot open ${VIEW_PAGE[page].label}, so it cannot save a view of it`);
}

/** Shared means shared with the owner's own team; without a team there is no one to share with. */
function mayShare(o: Owner) {
  if (!o.teamId) throw forbidden('Your account belongs to no team: a view is shared with your own team only');
}

type Row = {
  id: string;
  ownerId: string;
  teamId: string | null;
  page: string;
  name: string;
  filters: string;
  shared: boolean;
  createdAt: Date;
  updatedAt: Date;
};

async function present(rows: Row[], me: string): Promise<SavedViewView[]> {
  const owners = await db().user.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.ownerId))] } }, select: { id: true, email: true } });
  const email = new Map(owners.map((u) => [u.id, u.email]));
  return rows.map((r) => ({
    id: r.id,
    page: r.page as ViewPage,
    name: r.name,
    filters: r.filters,
    href: viewHref(r.page as ViewPage, r.filters),
    shared: r.shared,
    owner: email.get(r.ownerId) ?? '',
    mine: r.ownerId === me,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  }));
}

/** The `where` of the views a user sees: their own, and those shared with their team. */
function visible(o: Owner) {
  return {
    page: { in: pagesFor(o) },
    OR: [{ ownerId: o.userId }, ...(o.teamId ? [{ shared: true, teamId: o.teamId }] : [])],
  };
}

/** The views the caller sees (own first, then the team's), optionally of one page. */
export async function listViews(actor: Principal, opts: { page?: string; owner?: string } = {}): Promise<SavedViewView[]> {
  authorize(actor, 'views.manage');
  const o = await ownerOf(actor, opts.owner);
  const page = opts.page === undefined ? undefined : z.enum(VIEW_PAGES).parse(opts.page);
  const rows = await db().savedView.findMany({
    where: { AND: [visible(o), ...(page ? [{ page }] : [])] },
    orderBy: [{ page: 'asc' }, { name: 'asc' }],
    take: 500,
  });
  const views = await present(rows, o.userId);
  return [...views.filter((v) => v.mine), ...views.filter((v) => !v.mine)];
}

async function findVisible(tx: Tx, o: Owner, id: string, lock = false): Promise<Row> {
  if (!UUID.test(id)) throw notFound('No such view');
  const row = await tx.savedView.findFirst({ where: { AND: [{ id }, visible(o)] } });
  if (!row) throw notFound('No such view');
  if (lock) await tx.$executeRaw`SELECT 1 FROM saved_views WHERE id = ${id}::uuid FOR UPDATE`;
  return row;
}

/** One view the caller sees (404 otherwise). */
export async function getView(actor: Principal, id: string, opts: { owner?: string } = {}): Promise<SavedViewView> {
  authorize(actor, 'views.manage');
  const o = await ownerOf(actor, opts.owner);
  return (await present([await findVisible(db(), o, id)], o.userId))[0]!;
}

function audited(actor: Principal, action: string, row: Row, extra: { before?: unknown; after?: unknown }) {
  return {
    actor: auditActor(actor),
    action,
    targetType: 'saved_view',
    targetId: row.id,
    teamId: row.teamId,
    ...extra,
  };
}

const snapshot = (r: Pick<Row, 'page' | 'name' | 'filters' | 'shared'>) => ({ page: r.page, name: r.name, filters: r.filters, shared: r.shared });

function duplicate(e: unknown, viewName: string): never {
  if (e && typeof e === 'object' && 'code' in e && e.code === 'P2002')
    throw new AppError('conflict', `You already have a view named "${viewName}" on this page`, { field: 'name' });
  throw e;
}

/** Save a view; audited "view.create". */
export async function createView(actor: Principal, input: CreateViewInput, clock: Clock = systemClock): Promise<SavedViewView> {
  authorize(actor, 'views.manage');
  const data = createViewInput.parse(input);
  const o = await ownerOf(actor, data.owner);
  mayOpen(o, data.page);
  if (data.shared) mayShare(o);
  const filtersQuery = normalizeFilters(data.page, data.filters);
  const now = clock.now();
  const row = await db()
    .$transaction(async (tx) => {
      const r = await tx.savedView.create({
        data: {
          ownerId: o.userId,
          teamId: o.teamId,
          page: data.page,
          name: data.name,
          filters: filtersQuery,
          shared: data.shared,
          createdAt: now,
          updatedAt: now,
        },
      });
      await append(tx, audited(actor, 'view.create', r, { after: { ...snapshot(r), owner: o.email } }), clock);
      return r;
    })
    .catch((e) => duplicate(e, data.name));
  return (await present([row], o.userId))[0]!;
}

/** Rename, re-filter or share / unshare the caller's own view; audited "view.update". */
export async function updateView(
  actor: Principal,
  id: string,
  input: UpdateViewInput,
  clock: Clock = systemClock,
  opts: { owner?: string } = {},
): Promise<SavedViewView> {
  authorize(actor, 'views.manage');
  const data = updateViewInput.parse(input);
  const o = await ownerOf(actor, opts.owner);
  if (data.shared) mayShare(o);
  const now = clock.now();
  const row = await db()
    .$transaction(async (tx) => {
      const before = await findVisible(tx, o, id, true);
      if (before.ownerId !== o.userId) throw forbidden('Only its owner changes a view');
      const page = before.page as ViewPage;
      const next = {
        name: data.name ?? before.name,
        filters: data.filters !== undefined ? normalizeFilters(page, data.filters) : before.filters,
        shared: data.shared ?? before.shared,
        // Sharing again shares with the owner's team now.
        teamId: data.shared ? o.teamId : before.teamId,
      };
      const r = await tx.savedView.update({ where: { id: before.id }, data: { ...next, updatedAt: now } });
      const changed = (['name', 'filters', 'shared'] as const).filter((k) => before[k] !== r[k]);
      const pick = (x: Row) => Object.fromEntries(changed.map((k) => [k, x[k]]));
      await append(tx, audited(actor, 'view.update', r, { before: pick(before), after: pick(r) }), clock);
      return r;
    })
    .catch((e) => duplicate(e, data.name ?? ''));
  return (await present([row], o.userId))[0]!;
}

/** Delete the caller's own view; audited "view.delete" with what it was. */
export async function deleteView(actor: Principal, id: string, clock: Clock = systemClock, opts: { owner?: string } = {}): Promise<void> {
  authorize(actor, 'views.manage');
  const o = await ownerOf(actor, opts.owner);
  await db().$transaction(async (tx) => {
    const before = await findVisible(tx, o, id, true);
    if (before.ownerId !== o.userId) throw forbidden('Only its owner deletes a view');
    await tx.savedView.delete({ where: { id: before.id } });
    await append(tx, audited(actor, 'view.delete', before, { before: snapshot(before) }), clock);
  });
}
