// The data the security suite acts on: the demo's teams, users (one per role, plus finance's support
// and lead) and sources, each user with a personal API token. Vitest seeds it into its fresh
// database; Playwright finds it already seeded by scripts/e2e.mjs. Both read it with loadFixtures().
import { createHash, randomBytes } from 'node:crypto';
import { SYSTEM, type Actor, type Role } from '@/lib/auth';
import { createPersonalToken } from '@/lib/admin/tokens';
import { append } from '@/lib/audit';
import { db } from '@/lib/db';
import { mergeClusters } from '@/lib/clustering/merge-clusters';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { createWebhook } from '@/lib/notifications/webhooks';
import { startRedrive } from '@/lib/redrive/start-redrive';
import { createRedriveRule } from '@/lib/redrive-rules';
import { createSource } from '@/lib/sources/create-source';
import { createView } from '@/lib/saved-views';
import { DEMO_SOURCES, DEMO_USERS, seed } from '../../prisma/seed';
import { asSuperuser } from '../support/audit';

export interface FixtureUser {
  id: string;
  email: string;
  role: Role;
  teamId: string | null;
  /** A personal API token acting as this user (Authorization: Bearer …). */
  token: string;
}

export interface FixtureSource {
  id: string;
  name: string;
  teamId: string;
}

export type SourceName = (typeof DEMO_SOURCES)[number]['name'];

export interface Fixtures {
  teams: { commerce: string; finance: string };
  /** By e-mail: support@, lead@, auditor@, admin@, finance-support@, finance-lead@triage.local. */
  users: Record<string, FixtureUser>;
  sources: Record<SourceName, FixtureSource>;
}

/** The user who plays each role in the matrix; support and lead belong to team commerce. */
export const ACTING: Record<Role, string> = {
  support: 'support@triage.local',
  lead: 'lead@triage.local',
  auditor: 'auditor@triage.local',
  admin: 'admin@triage.local',
};

export const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

export async function seedFixtures(): Promise<Fixtures> {
  await seed();
  return loadFixtures();
}

export async function loadFixtures(): Promise<Fixtures> {
  const teams = await db().team.findMany({ where: { name: { in: ['commerce', 'finance'] } } });
  const teamId = (name: string) => teams.find((t) => t.name === name)!.id;
  const users: Record<string, FixtureUser> = {};
  for (const u of DEMO_USERS) {
    const row = await db().user.findUniqueOrThrow({ where: { email: u.email } });
    const { token } = await createPersonalToken({ ...SYSTEM, label: 'security-suite' }, u.email);
    users[u.email] = { id: row.id, email: row.email, role: row.role, teamId: row.teamId, token };
  }
  const sources = {} as Record<SourceName, FixtureSource>;
  for (const s of DEMO_SOURCES) {
    const row = await db().source.findUniqueOrThrow({ where: { name: s.name } });
    sources[s.name] = { id: row.id, name: row.name, teamId: row.teamId };
  }
  return { teams: { commerce: teamId('commerce'), finance: teamId('finance') }, users, sources };
}

/** The lib-level principal of a fixture user, for calling lib/ functions directly. */
export function principal(u: FixtureUser): Actor {
  return { userId: u.id, email: u.email, role: u.role, teamId: u.teamId, via: 'token' };
}

/** A source of the acting user's own team (commerce for roles without a team), and one of the other team. */
export function ownSource(fx: Fixtures, as: FixtureUser): FixtureSource {
  return as.teamId === fx.teams.finance ? fx.sources.payments : fx.sources.orders;
}

export function otherTeamSource(fx: Fixtures, as: FixtureUser): FixtureSource {
  return as.teamId === fx.teams.finance ? fx.sources.orders : fx.sources.payments;
}

/** A fresh open dead letter in `source`, for endpoints that act on one; its own cluster with `cause`. */
export async function newDeadLetter(source: FixtureSource, opts: { payload?: string; cause?: string } = {}): Promise<string> {
  const [r] = await recordDeadLetters({ id: source.id, retentionSeconds: 14 * 86400 }, [
    {
      messageId: unique('msg'),
      payload: Buffer.from(opts.payload ?? '{"order":1}'),
      reason: 'Rejected',
      errorType: opts.cause ?? 'ValidationError',
      errorMessage: 'field "gift" is unknown',
    },
  ]);
  return r!.id;
}

/** A fresh cluster with one open dead letter in `source`. */
export async function newCluster(source: FixtureSource): Promise<string> {
  const id = await newDeadLetter(source, { cause: `Cause${randomBytes(6).toString('hex')}Error` });
  const row = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id) }, select: { clusterId: true } });
  return row.clusterId!;
}

/** A fresh cluster of two dead letters in `source` whose payloads differ at $.type: a split makes two parts. */
export async function newSplittableCluster(source: FixtureSource): Promise<string> {
  const cause = `Cause${randomBytes(6).toString('hex')}Error`;
  const ids = await Promise.all(['order.created', 'order.updated'].map((type) => newDeadLetter(source, { cause, payload: JSON.stringify({ type }) })));
  const row = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(ids[0]!) }, select: { clusterId: true } });
  return row.clusterId!;
}

/** Two fresh clusters in `source`, the first merged into the second; returns the merged one (an alias). */
export async function newMergedCluster(source: FixtureSource): Promise<string> {
  const from = await newCluster(source);
  const into = await newCluster(source);
  await mergeClusters({ ...SYSTEM, label: 'security-suite' }, from, { into, reason: 'security suite' });
  return from;
}

/** A fresh webhook of `source`'s team (deliveries go nowhere: a closed local port). */
export async function newWebhook(source: FixtureSource): Promise<string> {
  const team = await db().team.findUniqueOrThrow({ where: { id: source.teamId } });
  const { webhook } = await createWebhook({ ...SYSTEM, label: 'security-suite' }, { url: 'http://127.0.0.1:9/hook', team: team.name });
  return webhook.id;
}

/**
 * A break in the audit chain to acknowledge: a fresh event whose stored reason no longer matches
 * its hash (what a superuser's edit, or an event hashed over other text than was stored, leaves).
 */
export async function newAuditBreak(): Promise<string> {
  const { id } = await db().$transaction((tx) =>
    append(tx, { actor: { userId: null, email: 'security-suite', role: 'system' }, action: 'test.event', reason: unique('as hashed') }),
  );
  await asSuperuser(`UPDATE audit_events SET reason = 'as stored' WHERE id = ${id}`);
  return id.toString();
}

/** A fresh redrive rule on `source`, acting for a lead of its team. */
export async function newRedriveRule(source: FixtureSource): Promise<string> {
  const lead = await db().user.findFirstOrThrow({ where: { role: 'lead', teamId: source.teamId }, orderBy: { email: 'asc' } });
  const rule = await createRedriveRule({ ...SYSTEM, label: 'security-suite' }, source.name, { name: unique('rule'), kind: 'on_resolved', author: lead.email });
  return rule.id;
}

/** A fresh source of `like`'s team: a redrive allows one active task per source. */
export async function newSource(like: FixtureSource): Promise<FixtureSource> {
  const s = await createSource({ ...SYSTEM, label: 'security-suite' }, { name: unique('sec-src'), team: like.teamId });
  return { id: s.id, name: s.name, teamId: s.teamId };
}

/**
 * A fresh RabbitMQ source of `like`'s team (the local broker; its queue need not exist: a connection
 * test then reports that, which is still an answer), its import paused when asked.
 */
export async function newConnectorSource(like: FixtureSource, opts: { paused?: boolean } = {}): Promise<FixtureSource> {
  const s = await createSource(
    { ...SYSTEM, label: 'security-suite' },
    {
      name: unique('sec-rmq'),
      team: like.teamId,
      kind: 'rabbitmq',
      connection: { queue: unique('sec.dlq') },
      secret: { url: 'amqp://guest:guest@127.0.0.1:5672' },
    },
  );
  if (opts.paused) await db().source.update({ where: { id: s.id }, data: { importPaused: true } });
  return { id: s.id, name: s.name, teamId: s.teamId };
}

/**
 * A redrive task over one fresh dead letter in a fresh source of `like`'s team, put in `status`
 * (started by the system, so any lead may approve it: four eyes).
 */
export async function newRedriveTask(like: FixtureSource, status: 'queued' | 'paused' | 'pending_approval' = 'queued'): Promise<string> {
  const source = await newSource(like);
  const id = await newDeadLetter(source);
  const task = await startRedrive({ ...SYSTEM, label: 'security-suite' }, { selection: { ids: [id] }, ratePerSecond: 1 });
  if (status !== 'queued') await db().redriveTask.update({ where: { id: task.id }, data: { status } });
  return task.id;
}

/** A saved view of the dead-letter list owned by `owner` (shared with its team when it has one). */
export async function newView(owner: FixtureUser): Promise<string> {
  const v = await createView(
    { ...SYSTEM, label: 'security-suite' },
    { owner: owner.email, page: 'dead_letters', name: unique('view'), filters: 'status=open', shared: !!owner.teamId },
  );
  return v.id;
}

/** A fresh dead letter in `source` with one edited version (v1) stored, for the version download. */
export async function newEditedDeadLetter(source: FixtureSource): Promise<string> {
  const id = await newDeadLetter(source);
  const payload = Buffer.from('{"order":2}');
  await db().deadLetterVersion.create({
    data: {
      deadLetterId: BigInt(id),
      version: 1,
      payload,
      payloadSize: payload.length,
      payloadSha256: createHash('sha256').update(payload).digest('hex'),
      diff: {},
    },
  });
  return id;
}
