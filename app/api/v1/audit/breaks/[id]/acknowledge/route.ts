// POST /api/v1/audit/breaks/{id}/acknowledge — an admin marks a break in the chain as known, with a reason (audited)
import { api, pathParams } from '@/lib/auth/guard';
import { acknowledgeAuditBreak, acknowledgeBreakInput } from '@/lib/admin/acknowledge-audit-break';

export const POST = api('admin.manage', { params: pathParams('id'), body: acknowledgeBreakInput }, async ({ actor, params, body }) => {
  return Response.json(await acknowledgeAuditBreak(actor, params.id, body.reason));
});
