import { db, type Tx } from '@/lib/db';
import { sourceScope, type Permission, type Principal } from '@/lib/auth';
import { notFound } from '@/lib/errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A source by name (or id) that the actor may use for `permission`. Authorization is in the query:
 * another team's source answers 404, exactly like one that does not exist.
 */
export async function findSource(actor: Principal, ref: string, permission: Permission, tx: Tx = db()) {
  const source = await tx.source.findFirst({
    where: { ...sourceScope(actor, permission), ...(UUID.test(ref) ? { OR: [{ id: ref }, { name: ref }] } : { name: ref }) },
    include: { team: { select: { name: true } } },
  });
  if (!source) throw notFound(`No source "${ref}"`);
  return source;
}
