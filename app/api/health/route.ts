// GET /api/health — Postgres and Redis reachable, and Redis safe for BullMQ
import { checkHealth } from '@/lib/health';

export const dynamic = 'force-dynamic';

export async function GET() {
  const h = await checkHealth();
  return Response.json(h, { status: h.ok ? 200 : 503 });
}
