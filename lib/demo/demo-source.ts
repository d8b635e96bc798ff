// The demo's connector sources (the local RabbitMQ's, the local Sidekiq's): created once, by the
// system (audited), with the broker's URL as their secret.
import type { z } from 'zod';
import { SYSTEM } from '@/lib/auth';
import { redactUrl } from '@/lib/connectors/secrets';
import { db } from '@/lib/db';
import { log } from '@/lib/log';
import { createSource, type sourceInput } from '@/lib/sources/create-source';

/** Creates `source` reading the broker at `url`, unless a source of its name exists. */
export async function ensureDemoSource(source: Omit<z.input<typeof sourceInput>, 'secret'> & { name: string }, url: string, broker: string): Promise<void> {
  if (await db().source.findUnique({ where: { name: source.name } })) return;
  await createSource({ ...SYSTEM, label: 'demo' }, { ...source, secret: { url } });
  log.info({ source: source.name, url: redactUrl(url) }, `demo ${broker} source created`);
}
