import { db } from '@/lib/db';
import { sourceScope, type Permission, type Principal } from '@/lib/auth';

/**
 * Sources the actor may see for `permission` (team-scoped roles: their team's only). A connector
 * source's encrypted credentials never leave the server: they are not even read here.
 */
export function listSources(actor: Principal, permission: Permission = 'deadletters.read') {
  return db().source.findMany({
    where: sourceScope(actor, permission),
    orderBy: { name: 'asc' },
    include: { team: { select: { name: true } } },
    omit: { connectionSecret: true },
  });
}
