// A team's webhooks: where its alarm notifications go. Managed by the team's lead (and admins),
// the same people who own the sources' policies; every change is audited.
import { redactUrl } from '@/lib/outbound/redact-url';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { db, type Tx } from '@/lib/db';
import { dateTime, listOf } from '@/lib/wire';
import { append } from '@/lib/audit';
import { auditActor, authorize, isSystem, sourceScope, type Principal } from '@/lib/auth';
import { env } from '@/lib/env';
import { notFound, unprocessable } from '@/lib/errors';
import { assertOutboundUrl } from '@/lib/outbound/outbound-url';
import { createDeliveries, enqueueAfterCommit } from './deliveries';

const url = z
  .string()
  .trim()
  .max(2000)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must start with http:// or https://');

export const webhookInput = z.object({ url, team: z.string().trim().min(1).optional() }).strict();
export const webhookPatch = z.object({ url: url.optional(), enabled: z.boolean().optional() }).strict();

/** What a client sees of a webhook: never its signing secret (shown once, when created). PUBLIC selects exactly these. */
export const WebhookView = z.object({
  id: z.uuid(),
  teamId: z.uuid(),
  team: z.object({ name: z.string() }),
  url: z.string(),
  enabled: z.boolean(),
  createdAt: dateTime,
});
const PUBLIC = { id: true, teamId: true, url: true, enabled: true, createdAt: true, team: { select: { name: true } } } as const satisfies Record<
  keyof z.infer<typeof WebhookView>,
  unknown
>;
export const WebhookListView = listOf('webhooks', WebhookView);
export const OneWebhookView = z.object({ webhook: WebhookView });
/** POST /api/v1/webhooks: the signing secret, this once. */
export const CreatedWebhookView = OneWebhookView.extend({ secret: z.string().describe('whsec_…: shown once') });
export const TestWebhookView = z.object({ deliveryId: z.string() });

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export const DeliveryView = z.object({
  id: z.string(),
  webhookId: z.uuid(),
  event: z.string().describe('e.g. alarm.transition or webhook.test'),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.int(),
  responseStatus: z.int().nullable(),
  error: z.string().nullable(),
  createdAt: dateTime,
  deliveredAt: dateTime.nullable(),
  text: z.string().describe('The message sent'),
});
export const DeliveryListView = z.object({ deliveries: z.array(DeliveryView).describe('Newest first') });

/** Which team a new webhook belongs to: a lead's own; an admin names one. */
async function targetTeam(tx: Tx, actor: Principal, team: string | undefined): Promise<string> {
  const scope = authorize(actor, 'sources.policy');
  if (scope === 'team' && !isSystem(actor)) {
    if (team && team !== actor.teamId) {
      const t = await tx.team.findFirst({ where: { OR: [{ name: team }, ...(isUuid(team) ? [{ id: team }] : [])] } });
      if (t?.id !== actor.teamId) throw unprocessable('You can add webhooks for your own team only', { field: 'team' });
    }
    return actor.teamId!;
  }
  if (!team) throw unprocessable('Name the team the webhook is for', { field: 'team' });
  const t = await tx.team.findFirst({ where: { OR: [{ name: team }, ...(isUuid(team) ? [{ id: team }] : [])] } });
  if (!t) throw unprocessable(`No team "${team}"`, { field: 'team' });
  return t.id;
}

const isUuid = (s: string) => /^[0-9a-f-]{36}$/i.test(s);

export function listWebhooks(actor: Principal) {
  return db().webhook.findMany({ where: sourceScope(actor, 'sources.policy'), select: PUBLIC, orderBy: { createdAt: 'asc' } });
}

/** Create a webhook; its signing secret is returned this once (it is kept, to sign with). */
export async function createWebhook(actor: Principal, input: z.input<typeof webhookInput>) {
  const data = webhookInput.parse(input);
  await assertOutboundUrl(data.url, 'url');
  return db().$transaction(async (tx) => {
    const teamId = await targetTeam(tx, actor, data.team);
    const secret = `whsec_${randomBytes(24).toString('base64url')}`;
    const webhook = await tx.webhook.create({ data: { teamId, url: data.url, secret }, select: PUBLIC });
    await append(tx, {
      actor: auditActor(actor),
      action: 'webhook.create',
      targetType: 'webhook',
      targetId: webhook.id,
      teamId,
      after: { url: redactUrl(webhook.url) },
    });
    return { webhook, secret };
  });
}

async function findWebhook(tx: Tx, actor: Principal, id: string) {
  const w = isUuid(id) ? await tx.webhook.findFirst({ where: { id, ...sourceScope(actor, 'sources.policy') }, select: PUBLIC }) : null;
  if (!w) throw notFound('No such webhook');
  return w;
}

export async function updateWebhook(actor: Principal, id: string, input: z.input<typeof webhookPatch>) {
  const patch = webhookPatch.parse(input);
  if (patch.url) await assertOutboundUrl(patch.url, 'url');
  return db().$transaction(async (tx) => {
    const before = await findWebhook(tx, actor, id);
    const webhook = await tx.webhook.update({ where: { id: before.id }, data: patch, select: PUBLIC });
    await append(tx, {
      actor: auditActor(actor),
      action: 'webhook.update',
      targetType: 'webhook',
      targetId: webhook.id,
      teamId: webhook.teamId,
      // URLs as scheme and host: the path of a Slack-style URL is its secret (lib/outbound/redact-url.ts).
      before: { url: redactUrl(before.url), enabled: before.enabled },
      after: { url: redactUrl(webhook.url), enabled: webhook.enabled },
    });
    return webhook;
  });
}

export async function deleteWebhook(actor: Principal, id: string) {
  await db().$transaction(async (tx) => {
    const before = await findWebhook(tx, actor, id);
    await tx.webhook.delete({ where: { id: before.id } });
    await append(tx, {
      actor: auditActor(actor),
      action: 'webhook.delete',
      targetType: 'webhook',
      targetId: before.id,
      teamId: before.teamId,
      before: { url: redactUrl(before.url) },
    });
  });
}

/** Queue a test message to one webhook (enabled or not); its outcome shows in the delivery log. */
export async function sendTestWebhook(actor: Principal, id: string) {
  const deliveries = await db().$transaction(async (tx) => {
    const w = await findWebhook(tx, actor, id);
    const who = isSystem(actor) ? 'the system' : actor.email;
    const text = `Test message from Triage (${env().APP_URL}), sent by ${who}. Alarm notifications for team ${w.team.name} arrive here.`;
    const created = await createDeliveries(tx, w.teamId, 'webhook.test', { text }, w.id);
    await append(tx, { actor: auditActor(actor), action: 'webhook.test', targetType: 'webhook', targetId: w.id, teamId: w.teamId });
    return created;
  });
  await enqueueAfterCommit(deliveries);
  return { deliveryId: deliveries[0]!.id.toString() };
}

/** The delivery log, newest first, of the webhooks the actor manages. */
export async function listDeliveries(actor: Principal, opts: { webhookId?: string; limit?: number } = {}) {
  // One webhook's log: a webhook the actor does not manage (or no webhook at all) is a 404, never
  // the whole log.
  if (opts.webhookId !== undefined) await findWebhook(db(), actor, opts.webhookId);
  const rows = await db().webhookDelivery.findMany({
    where: { webhook: sourceScope(actor, 'sources.policy'), ...(opts.webhookId !== undefined ? { webhookId: opts.webhookId } : {}) },
    orderBy: { id: 'desc' },
    take: Math.min(opts.limit ?? 50, 200),
    select: {
      id: true,
      webhookId: true,
      event: true,
      status: true,
      attempts: true,
      responseStatus: true,
      error: true,
      createdAt: true,
      deliveredAt: true,
      body: true,
    },
  });
  return rows.map(({ body, ...r }) => ({ ...r, id: r.id.toString(), text: (body as { text?: string }).text ?? '' }));
}
