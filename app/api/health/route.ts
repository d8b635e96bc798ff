// GET /api/health — ready or not (Postgres and Redis reachable, Redis safe for BullMQ); each check only for an admin
import { checkHealth } from '@/lib/health';
import { actorFromPersonalToken } from '@/lib/auth/actor';
import { can } from '@/lib/auth/permissions';
import { bearerToken } from '@/lib/auth/tokens';

export const dynamic = 'force-dynamic';

// A stranger (a load balancer, anyone) learns ok or not ok: the checks' error text names hosts,
// ports and users. An admin's token or session sees which check failed.
async function isOperator(req: Request): Promise<boolean> {
  const token = bearerToken(req.headers.get('authorization'));
  if (token) {
    const actor = await actorFromPersonalToken(token).catch(() => undefined);
    return actor !== undefined && can(actor.role, 'admin.manage');
  }
  if (!req.headers.get('cookie')) return false;
  // Only with a cookie: the session lookup needs Auth.js, which a probe need not load.
  const { optionalActor } = await import('@/lib/auth/guard');
  const actor = await optionalActor().catch(() => undefined);
  return actor !== undefined && can(actor.role, 'admin.manage');
}

export async function GET(req: Request) {
  const h = await checkHealth();
  const body = (await isOperator(req)) ? h : { ok: h.ok };
  return Response.json(body, { status: h.ok ? 200 : 503, headers: { 'cache-control': 'no-store' } });
}
