'use server';
// Team webhook actions: guard, then the same lib/ functions as /api/v1/webhooks.
import { revalidatePath } from 'next/cache';
import { ZodError } from 'zod';
import { actionActor } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { createWebhook, deleteWebhook, sendTestWebhook, updateWebhook } from '@/lib/notifications/webhooks';

export interface WebhookState {
  ok?: string;
  error?: string;
  secret?: string;
}

const str = (f: FormData, k: string) => {
  const v = f.get(k);
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
};

async function run(fn: () => Promise<string | WebhookState>): Promise<WebhookState> {
  try {
    const r = await fn();
    revalidatePath('/settings/webhooks');
    return typeof r === 'string' ? { ok: r } : r;
  } catch (e) {
    if (e instanceof AppError) return { error: e.message };
    if (e instanceof ZodError) return { error: e.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ') };
    throw e;
  }
}

export async function createWebhookAction(_: WebhookState, f: FormData) {
  return run(async () => {
    const actor = await actionActor('sources.policy');
    const { secret } = await createWebhook(actor, { url: str(f, 'url') ?? '', team: str(f, 'team') });
    return { ok: 'Webhook added. Its signing secret is shown once:', secret };
  });
}

export async function setWebhookEnabledAction(_: WebhookState, f: FormData) {
  return run(async () => {
    const actor = await actionActor('sources.policy');
    const w = await updateWebhook(actor, str(f, 'id') ?? '', { enabled: str(f, 'enabled') === 'true' });
    return w.enabled ? 'Enabled' : 'Disabled';
  });
}

export async function deleteWebhookAction(_: WebhookState, f: FormData) {
  return run(async () => {
    await deleteWebhook(await actionActor('sources.policy'), str(f, 'id') ?? '');
    return 'Deleted';
  });
}

export async function testWebhookAction(_: WebhookState, f: FormData) {
  return run(async () => {
    await sendTestWebhook(await actionActor('sources.policy'), str(f, 'id') ?? '');
    return 'Test message queued: see the delivery log';
  });
}
