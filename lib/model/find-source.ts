// The one lookup of a source by the name or id a client gave (routes, pages, server actions, the
// CLI, redrive selections): every caller goes through findSource, so scope and 404 are the same.
import { db, type Tx } from '@/lib/db';
import { sourceScope, type Permission, type Principal } from '@/lib/auth';
import { notFound } from '@/lib/errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A source by name (or id) that the actor may use for `permission`. Authorization is in the query:
 * another team's source answers 404, exactly like one that does not exist. Pass the transaction to
 * read it inside one (an audited change, a redrive start).
 */
export async function findSource(actor: Principal, ref: string, permission: Permission, tx: Tx = db()) {
  const source = await tx.source.findFirst({
    where: { ...sourceScope(actor, permission), ...(UUID.test(ref) ? { OR: [{ id: ref }, { name: ref }] } : { name: ref }) },
    include: { team: { select: { name: true } } },
    // A name that is another source's id is the only way two rows match: then the order is stable.
    orderBy: { name: 'asc' },
  });
  if (!source) throw notFound(`No source "${ref}"`);
  return source;
}
