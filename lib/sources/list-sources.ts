import type { z } from 'zod';
import { db } from '@/lib/db';
import { SourceView, sourceView } from './source-view';
import { sourceScope, type Permission, type Principal } from '@/lib/auth';
import { listOf } from '@/lib/wire';

/**
 * Sources the actor may see for `permission` (team-scoped roles: their team's only). A connector
 * source's encrypted credentials never leave the server: they are not even read here, only whether
 * they are stored (`credentialsStored`).
 */
export async function listSources(actor: Principal, permission: Permission = 'deadletters.read') {
  const sources = await db().source.findMany({
    where: sourceScope(actor, permission),
    orderBy: { name: 'asc' },
    include: { team: { select: { name: true } } },
    omit: { connectionSecret: true },
  });
  const ids = sources.map((s) => s.id);
  const stored = ids.length
    ? await db().$queryRaw<{ id: string }[]>`SELECT id::text FROM sources WHERE id = ANY(${ids}::uuid[]) AND connection_secret IS NOT NULL`
    : [];
  const withSecret = new Set(stored.map((r) => r.id));
  return sources.map((s) => ({ ...s, credentialsStored: withSecret.has(s.id) }));
}

/** GET /api/v1/sources: what a client may see of each (lib/sources/source-view.ts), in name order. */
export const SourceListView = listOf('sources', SourceView);

export async function listSourceViews(actor: Principal): Promise<z.infer<typeof SourceListView>> {
  return { sources: (await listSources(actor)).map(sourceView) };
}
