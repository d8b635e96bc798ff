// "Deploy" a demo handler version: the fix that makes a later redrive of the orders poison succeed.
import { writeSetting } from '@/lib/audit';
import { auditActor, authorize, type Principal } from '@/lib/auth';
import { db } from '@/lib/db';
import { env } from '@/lib/env';
import { unprocessable } from '@/lib/errors';
import { HANDLER_VERSION_KEY, HANDLER_VERSIONS, type HandlerVersion } from './settings';

export async function deployDemoHandler(actor: Principal, version: string): Promise<{ before: HandlerVersion; after: HandlerVersion }> {
  authorize(actor, 'admin.manage');
  if (!HANDLER_VERSIONS.includes(version as HandlerVersion)) {
    throw unprocessable(`The demo handler version is one of ${HANDLER_VERSIONS.join(', ')}`, { field: 'version' });
  }
  const after = version as HandlerVersion;
  // As the other audited writes: a loaded pool frees a connection within seconds, not within 2 s.
  return db().$transaction(
    async (tx) => {
      const row = await tx.setting.findUnique({ where: { key: HANDLER_VERSION_KEY } });
      const before = (HANDLER_VERSIONS.includes(row?.value as HandlerVersion) ? row!.value : env().DEMO_HANDLER_VERSION) as HandlerVersion;
      await writeSetting(tx, { actor: auditActor(actor), action: 'demo.deploy', key: HANDLER_VERSION_KEY, name: 'version', before, after });
      return { before, after };
    },
    { maxWait: 10_000 },
  );
}
