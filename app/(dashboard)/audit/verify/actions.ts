'use server';
// Acknowledge a break in the audit chain (admin): the same lib/ function the API calls.
import { z } from 'zod';
import { action, form } from '@/lib/auth/action';
import { acknowledgeAuditBreak } from '@/lib/admin/acknowledge-audit-break';

export const acknowledgeBreakAction = action('admin.manage', z.object({ id: form.text, reason: form.text }), async ({ id, reason }, { actor }) => {
  const r = await acknowledgeAuditBreak(actor, id, reason);
  return { message: `Break at #${r.eventId} acknowledged (audit event #${r.auditEventId}). Verify again to see the chain after it.` };
});
