import { db } from '@/lib/db';
import { sourceScope, type Permission, type Principal } from '@/lib/auth';

/** Sources the actor may see for `permission` (team-scoped roles: their team's only). */
export function listSources(actor: Principal, permission: Permission = 'deadletters.read') {
  return db().source.findMany({ where: sourceScope(actor, permission), orderBy: { name: 'asc' }, include: { team: { select: { name: true } } } });
}
