// GET /api/v1/audit/export?format=csv|ndjson&actor=&action=&source=&targetType=&targetId=&from=&to= — stream the filtered trail (audited)
import { api } from '@/lib/auth/guard';
import { auditExportQuery, exportAuditEvents } from '@/lib/audit-trail/export';
import { EXPORT_ROWS } from '@/lib/openapi/media';

export const GET = api(
  'audit.read',
  {
    summary: 'Export the filtered trail, newest first, streamed (lead, auditor, admin; audited)',
    description:
      'The export is audited (audit.export) before the first byte and covers the trail up to just before its own event, whose id is in X-Audit-Event-Id. Details are masked for roles without payload.reveal; CSV cells a spreadsheet would evaluate are prefixed with an apostrophe.',
    tags: ['audit'],
    responses: { 200: { description: 'The events, as an attachment', content: EXPORT_ROWS } },
    errors: [400],
    query: auditExportQuery,
  },
  async ({ actor, query: { format, ...filter } }) => {
    const out = await exportAuditEvents(actor, filter, format);
    return new Response(out.body, {
      headers: {
        'content-type': out.contentType,
        'content-disposition': `attachment; filename="${out.filename}"`,
        'cache-control': 'private, no-store',
        'x-audit-event-id': out.eventId.toString(),
      },
    });
  },
);
