// Ownership of a cause (docs/design.md "Ownership of a cause"): a cluster's assignee, status,
// ticket link, hold and note thread. Every change is one audit event in the change's transaction;
// an assignment also queues a message to the assignee's team webhooks in that transaction.
import { z } from 'zod';
import { append } from '@/lib/audit';
import { auditActor, authorize, isSystem, scopeFor, type Principal } from '@/lib/auth';
import { systemClock, type Clock } from '@/lib/clock';
import { clusterScope, findCluster } from '@/lib/clustering/cluster-scope';
import { auditPlace } from '@/lib/clustering/archive-cluster';
import { db, pg, type Tx } from '@/lib/db';
import { env } from '@/lib/env';
import { unprocessable } from '@/lib/errors';
import { changingSomething, isoTime } from '@/lib/wire';
import { OWNERSHIP_STATUSES, type OwnershipStatus } from '@/lib/model/ownership-statuses';
import { createDeliveries, enqueueAfterCommit, type DeliveryRef } from '@/lib/notifications/deliveries';

export { OWNERSHIP_STATUSES, STATUS_LABEL, type OwnershipStatus } from '@/lib/model/ownership-statuses';

const note = z.string().trim().min(1, 'a note cannot be empty').max(4000);

export const ownershipInput = changingSomething(
  z
    .object({
      assignee: z.string().trim().max(254).nullable().optional().describe('Email or user id of the assignee; "me"; null to unassign'),
      status: z.enum(OWNERSHIP_STATUSES).optional(),
      ticketUrl: z
        .string()
        .trim()
        .max(2000)
        .url()
        .refine((u) => /^https?:\/\//i.test(u), 'must start with http:// or https://')
        .nullable()
        .optional()
        .describe('Link to the ticket; null to clear'),
      holdUntil: z.coerce.date().optional().describe('Required with status on_hold: when the hold ends'),
      fixVersion: z.string().trim().min(1).max(100).nullable().optional().describe('The version that fixes it (with resolved)'),
      note: note.optional().describe('Added to the note thread; required with status on_hold'),
    })
    .strict(),
);
export type OwnershipInput = z.input<typeof ownershipInput>;

export const noteInput = z.object({ body: note }).strict();

export const Ownership = z.object({
  clusterId: z.uuid(),
  status: z.enum(OWNERSHIP_STATUSES),
  assignee: z.object({ id: z.uuid(), email: z.string() }).nullable(),
  ticketUrl: z.string().nullable(),
  holdUntil: isoTime.nullable(),
  fixVersion: z.string().nullable(),
  regressedAt: isoTime.nullable().describe('When new dead letters last reopened it after it was resolved'),
  updatedAt: isoTime.nullable(),
});
export type Ownership = z.infer<typeof Ownership>;

export const ClusterNoteView = z.object({ id: z.string(), author: z.string(), body: z.string(), createdAt: isoTime });
export type ClusterNoteView = z.infer<typeof ClusterNoteView>;
/** GET /api/v1/clusters/{id}/ownership: the ownership and its note thread. */
export const OwnershipWithNotes = Ownership.extend({ notes: z.array(ClusterNoteView) });

interface Row {
  status: string;
  assignee_id: string | null;
  assignee_email: string | null;
  ticket_url: string | null;
  hold_until: Date | null;
  fix_version: string | null;
  regressed_at: Date | null;
  updated_at: Date | null;
}

function view(clusterId: string, r: Row | undefined): Ownership {
  return {
    clusterId,
    status: (r?.status ?? 'open') as OwnershipStatus,
    assignee: r?.assignee_id ? { id: r.assignee_id, email: r.assignee_email ?? '' } : null,
    ticketUrl: r?.ticket_url ?? null,
    holdUntil: r?.hold_until?.toISOString() ?? null,
    fixVersion: r?.fix_version ?? null,
    regressedAt: r?.regressed_at?.toISOString() ?? null,
    updatedAt: r?.updated_at?.toISOString() ?? null,
  };
}

async function readRow(tx: Tx, clusterId: string, lock = false): Promise<Row | undefined> {
  const rows = lock
    ? await tx.$queryRaw<Row[]>`
        SELECT o.status, o.assignee_id::text, u.email AS assignee_email, o.ticket_url, o.hold_until, o.fix_version, o.regressed_at, o.updated_at
        FROM cluster_ownership o LEFT JOIN users u ON u.id = o.assignee_id WHERE o.cluster_id = ${clusterId}::uuid FOR UPDATE OF o`
    : await tx.$queryRaw<Row[]>`
        SELECT o.status, o.assignee_id::text, u.email AS assignee_email, o.ticket_url, o.hold_until, o.fix_version, o.regressed_at, o.updated_at
        FROM cluster_ownership o LEFT JOIN users u ON u.id = o.assignee_id WHERE o.cluster_id = ${clusterId}::uuid`;
  return rows[0];
}

async function clusterSources(clusterId: string): Promise<string[]> {
  const rows = await pg()<{ source_id: string }[]>`SELECT source_id::text FROM cluster_sources WHERE cluster_id = ${clusterId}::uuid`;
  return rows.map((r) => r.source_id);
}

/** The ownership and note thread of a cluster the actor may read (404 otherwise). */
export async function getOwnership(actor: Principal, id: string): Promise<Ownership & { notes: ClusterNoteView[] }> {
  authorize(actor, 'deadletters.read');
  const cluster = await findCluster(id, await clusterScope(actor));
  const row = await readRow(db(), cluster.id);
  const notes = await db().clusterNote.findMany({ where: { clusterId: cluster.id }, orderBy: { id: 'asc' }, take: 500 });
  return {
    ...view(cluster.id, row),
    notes: notes.map((n) => ({ id: n.id.toString(), author: n.authorEmail, body: n.body, createdAt: n.createdAt.toISOString() })),
  };
}

/**
 * The assignee named by email, id or "me": an enabled user who may read the cluster, i.e. of a team
 * holding one of its sources (or an admin or auditor, who see every team).
 */
async function resolveAssignee(tx: Tx, actor: Principal, who: string, sourceTeams: Set<string>) {
  const me = !isSystem(actor) && who.toLowerCase() === 'me';
  const isId = /^[0-9a-f-]{36}$/i.test(who);
  const user = await tx.user.findFirst({
    where: me ? { id: actor.userId } : isId ? { id: who } : { email: { equals: who, mode: 'insensitive' } },
    select: { id: true, email: true, teamId: true, role: true, disabled: true },
  });
  if (!user || user.disabled) throw unprocessable(`No user "${who}"`, { field: 'assignee' });
  if (user.role === 'auditor') throw unprocessable('An auditor reads; a cluster is assigned to someone who acts on it', { field: 'assignee' });
  if (user.role !== 'admin' && !(user.teamId && sourceTeams.has(user.teamId))) {
    throw unprocessable(`${user.email} is not on a team with dead letters in this cluster`, { field: 'assignee' });
  }
  return user;
}

/** Assign, change the status, link a ticket, put on hold or resolve; one audit event "cluster.own". */
export async function updateOwnership(actor: Principal, id: string, input: OwnershipInput, clock: Clock = systemClock): Promise<Ownership> {
  authorize(actor, 'clusters.own');
  const data = ownershipInput.parse(input);
  const scope = await clusterScope(actor, 'clusters.own');
  const cluster = await findCluster(id, scope);
  const sources = await clusterSources(cluster.id);
  const now = clock.now();
  if (data.status === 'on_hold') {
    if (!data.note) throw unprocessable('Putting a cluster on hold needs a note saying why', { field: 'note' });
    if (!data.holdUntil) throw unprocessable('Putting a cluster on hold needs an end date (holdUntil)', { field: 'holdUntil' });
    if (data.holdUntil <= now) throw unprocessable('The hold must end in the future', { field: 'holdUntil' });
  } else if (data.holdUntil) throw unprocessable('holdUntil goes with status on_hold', { field: 'holdUntil' });
  if (data.fixVersion && data.status !== 'resolved') throw unprocessable('fixVersion goes with status resolved', { field: 'fixVersion' });

  let deliveries: DeliveryRef[] = [];
  const result = await db().$transaction(async (tx) => {
    // The first change creates the row; the lock orders concurrent changes of one cluster.
    await tx.$executeRaw`INSERT INTO cluster_ownership (cluster_id) VALUES (${cluster.id}::uuid) ON CONFLICT DO NOTHING`;
    const before = view(cluster.id, await readRow(tx, cluster.id, true));
    const next = { ...before };
    let assignee: { id: string; email: string; teamId: string | null } | null | undefined;
    if (data.assignee !== undefined) {
      if (data.assignee === null || data.assignee === '') assignee = null;
      else {
        const teams = new Set(scope.sources.filter((s) => sources.includes(s.id)).map((s) => s.teamId));
        assignee = await resolveAssignee(tx, actor, data.assignee, teams);
      }
      next.assignee = assignee ? { id: assignee.id, email: assignee.email } : null;
    }
    if (data.status) next.status = data.status;
    if (data.ticketUrl !== undefined) next.ticketUrl = data.ticketUrl;
    // A hold ends when the status moves on; a fix version belongs to a resolution.
    next.holdUntil = next.status === 'on_hold' ? (data.holdUntil?.toISOString() ?? before.holdUntil) : null;
    next.fixVersion = next.status === 'resolved' ? (data.fixVersion !== undefined ? data.fixVersion : before.fixVersion) : null;
    await tx.clusterOwnership.update({
      where: { clusterId: cluster.id },
      data: {
        status: next.status,
        assigneeId: next.assignee?.id ?? null,
        ticketUrl: next.ticketUrl,
        holdUntil: next.holdUntil ? new Date(next.holdUntil) : null,
        fixVersion: next.fixVersion,
        updatedAt: now,
      },
    });
    if (data.note) await tx.clusterNote.create({ data: { clusterId: cluster.id, ...noteAuthor(actor), body: data.note, createdAt: now } });
    const changed = (Object.keys(next) as (keyof Ownership)[]).filter((k) => k !== 'updatedAt' && JSON.stringify(next[k]) !== JSON.stringify(before[k]));
    await append(
      tx,
      {
        actor: auditActor(actor),
        action: 'cluster.own',
        targetType: 'cluster',
        targetId: cluster.id,
        ...auditPlace(scope, sources),
        reason: data.note ?? null,
        before: pick(before, changed),
        after: pick(next, changed),
      },
      clock,
    );
    if (assignee && assignee.id !== before.assignee?.id && assignee.teamId) {
      deliveries = await createDeliveries(
        tx,
        assignee.teamId,
        'cluster.assign',
        assignMessage(cluster.id, cluster.pattern ?? cluster.template, assignee.email, auditActor(actor).email),
      );
    }
    return { ...next, updatedAt: now.toISOString() };
  });
  await enqueueAfterCommit(deliveries);
  return result;
}

/** Add a note to the cluster's thread; audited "cluster.note". */
export async function addClusterNote(actor: Principal, id: string, input: z.input<typeof noteInput>, clock: Clock = systemClock): Promise<ClusterNoteView> {
  authorize(actor, 'clusters.own');
  const { body } = noteInput.parse(input);
  const scope = await clusterScope(actor, 'clusters.own');
  const cluster = await findCluster(id, scope);
  const sources = await clusterSources(cluster.id);
  return db().$transaction(async (tx) => {
    const n = await tx.clusterNote.create({ data: { clusterId: cluster.id, ...noteAuthor(actor), body, createdAt: clock.now() } });
    await append(
      tx,
      {
        actor: auditActor(actor),
        action: 'cluster.note',
        targetType: 'cluster',
        targetId: cluster.id,
        ...auditPlace(scope, sources),
        after: { note: n.id.toString(), body },
      },
      clock,
    );
    return { id: n.id.toString(), author: n.authorEmail, body: n.body, createdAt: n.createdAt.toISOString() };
  });
}

function noteAuthor(actor: Principal) {
  const a = auditActor(actor);
  return { authorId: a.userId, authorEmail: a.email };
}

function pick(o: Ownership, keys: (keyof Ownership)[]) {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}

function assignMessage(clusterId: string, template: string, assignee: string, by: string) {
  const link = `${env().APP_URL.replace(/\/$/, '')}/clusters/${clusterId}`;
  const text = `Cluster assigned to ${assignee} by ${by}: ${template.slice(0, 200)} ${link}`;
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `:bust_in_silhouette: *Assigned to ${assignee}* by ${by}\n<${link}|${template.slice(0, 200)}>` } },
    ],
  };
}

/** Emails to offer as assignees: the actor's team (an admin: everyone who acts), enabled. */
export async function assignablePeople(actor: Principal): Promise<string[]> {
  const team = isSystem(actor) || scopeFor(actor.role, 'clusters.own') === 'all' ? undefined : actor.teamId;
  const users = await db().user.findMany({
    where: { disabled: false, role: { not: 'auditor' }, ...(team ? { teamId: team } : {}) },
    select: { email: true },
    orderBy: { email: 'asc' },
    take: 200,
  });
  return users.map((u) => u.email);
}
