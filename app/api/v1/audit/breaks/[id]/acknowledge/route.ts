// POST /api/v1/audit/breaks/{id}/acknowledge — an admin marks a break in the chain as known, with a reason (audited)
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { AcknowledgedBreak, acknowledgeAuditBreak, acknowledgeBreakInput } from '@/lib/admin/acknowledge-audit-break';

export const POST = jsonRoute('admin.manage', ({ actor, params, body }) => acknowledgeAuditBreak(actor, params.id, body.reason), {
  summary: 'Acknowledge a break in the chain, with a reason (admin; audited)',
  description:
    'The event must be a break verify reports and no one has acknowledged. The acknowledgement holds the event as it is now: verify reports it as known, and a later change to the same event as a new break.',
  tags: ['audit'],
  responses: { 200: { description: 'Acknowledged', view: AcknowledgedBreak } },
  errors: [400, 409],
  params: pathParams('id'),
  body: acknowledgeBreakInput,
});
