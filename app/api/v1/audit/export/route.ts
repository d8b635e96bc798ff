// GET /api/v1/audit/export?format=csv|ndjson&actor=&action=&source=&targetType=&targetId=&from=&to= — stream the filtered trail (audited)
import { api } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { AUDIT_EXPORT_FORMATS, exportAuditEvents, type AuditExportFormat } from '@/lib/audit/export';
import { auditFilterFromSearch } from '@/lib/audit/filter';

export const GET = api('audit.read', async (req, { actor }) => {
  const params = new URL(req.url).searchParams;
  const format = params.get('format') ?? 'csv';
  if (!(AUDIT_EXPORT_FORMATS as readonly string[]).includes(format)) throw new AppError('bad_request', 'format must be csv or ndjson');
  const out = await exportAuditEvents(actor, auditFilterFromSearch(params), format as AuditExportFormat);
  return new Response(out.body, {
    headers: {
      'content-type': out.contentType,
      'content-disposition': `attachment; filename="${out.filename}"`,
      'cache-control': 'private, no-store',
      'x-audit-event-id': out.eventId.toString(),
    },
  });
});
