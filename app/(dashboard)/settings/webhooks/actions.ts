'use server';
// Team webhook actions: the action client (guard, form, errors), then the same lib/ functions as /api/v1/webhooks.
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { action, form, type ActionContext, type ActionReply } from '@/lib/auth/action';
import { createWebhook, deleteWebhook, sendTestWebhook, updateWebhook } from '@/lib/notifications/webhooks';

/** Shown once, after creating a webhook. */
export interface WebhookData {
  secret?: string;
}

/** Every webhook form: sources.policy, and the page shows the change. */
function webhookAction<S extends z.ZodType<object>>(schema: S, fn: (input: z.output<S>, ctx: ActionContext) => Promise<ActionReply<WebhookData>>) {
  return action<S, WebhookData>('sources.policy', schema, async (input, ctx) => {
    const reply = await fn(input, ctx);
    revalidatePath('/settings/webhooks');
    return reply;
  });
}

const byId = z.object({ id: form.text });

export const createWebhookAction = webhookAction(z.object({ url: form.text, team: form.optional }), async (input, { actor }) => {
  const { secret } = await createWebhook(actor, input);
  return { message: 'Webhook added. Its signing secret is shown once:', secret };
});

export const setWebhookEnabledAction = webhookAction(z.object({ id: form.text, enabled: form.flag }), async ({ id, enabled }, { actor }) => {
  const w = await updateWebhook(actor, id, { enabled });
  return { message: w.enabled ? 'Enabled' : 'Disabled' };
});

export const deleteWebhookAction = webhookAction(byId, async ({ id }, { actor }) => {
  await deleteWebhook(actor, id);
  return { message: 'Deleted' };
});

export const testWebhookAction = webhookAction(byId, async ({ id }, { actor }) => {
  await sendTestWebhook(actor, id);
  return { message: 'Test message queued: see the delivery log' };
});
