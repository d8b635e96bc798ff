// GET /api/v1/audit/export?format=csv|ndjson&actor=&action=&source=&targetType=&targetId=&from=&to= — stream the filtered trail (audited)
import { api } from '@/lib/auth/guard';
import { auditExportQuery, exportAuditEvents } from '@/lib/audit/export';

export const GET = api('audit.read', { query: auditExportQuery }, async ({ actor, query: { format, ...filter } }) => {
  const out = await exportAuditEvents(actor, filter, format);
  return new Response(out.body, {
    headers: {
      'content-type': out.contentType,
      'content-disposition': `attachment; filename="${out.filename}"`,
      'cache-control': 'private, no-store',
      'x-audit-event-id': out.eventId.toString(),
    },
  });
});
