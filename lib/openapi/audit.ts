// OpenAPI: the audit trail — exporting it and verifying its hash chain (session cookie or personal API token).
// Response bodies are the views of lib/audit (docs/style.md "Views").
import { AUDIT_EXPORT_FORMATS } from '@/lib/audit/export';
import { ChainVerdictView } from '@/lib/audit/verify';
import { acknowledgeBreakInput } from '@/lib/admin/acknowledge-audit-break';
import { errors, jsonContent, schemaOf, viewOf, type OpenApiArea } from './area';

const security = [{ apiToken: [] }, { session: [] }];

const q = (name: string, description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ name, in: 'query', schema, description });
const instant = { type: 'string', description: '2026-03-01, 2026-03-01T10:00 (both UTC) or an ISO date-time' };

export const auditArea: OpenApiArea = {
  tag: {
    name: 'audit',
    description: "The append-only, hash-chained trail of every decision and change. Leads read their team's events; auditors and admins the whole trail.",
  },
  paths: {
    '/api/v1/audit/export': {
      get: {
        tags: ['audit'],
        summary: 'Export the filtered trail, newest first, streamed (lead, auditor, admin; audited)',
        description:
          "The export is audited (audit.export) before the first byte and covers the trail up to just before its own event, whose id is in X-Audit-Event-Id. Details are masked for roles without payload.reveal; CSV cells a spreadsheet would evaluate are prefixed with an apostrophe.",
        security,
        parameters: [
          q('format', 'Output format', { type: 'string', enum: [...AUDIT_EXPORT_FORMATS], default: 'csv' }),
          q('actor', "A user's e-mail or id, or a system actor"),
          q('action', 'An exact action, or a prefix ending in "." or "*" (redrive. matches every redrive action)'),
          q('source', "A source's name or id"),
          q('targetType', 'Exact target type, e.g. dead_letter or source'),
          q('targetId', 'Exact target id'),
          q('from', 'At or after', instant),
          q('to', 'Before', instant),
        ],
        responses: {
          '200': {
            description: 'The events, as an attachment',
            headers: { 'X-Audit-Event-Id': { schema: { type: 'string' }, description: "The export's own audit event" } },
            content: { 'text/csv': { schema: { type: 'string' } }, 'application/x-ndjson': { schema: { type: 'string' } } },
          },
          ...errors(400, 401, 403, 422),
        },
      },
    },
    '/api/v1/audit/verify': {
      get: {
        tags: ['audit'],
        summary: 'Verify the whole hash chain against the signed checkpoints (auditor, admin)',
        description:
          'Recomputes every link in id order and lists every break (it goes on past one, so a change after a first break still shows); a cut tail or a recomputed chain shows against the checkpoints. ok is true when no break is left unacknowledged. A lead (team-scoped) gets 403.',
        security,
        responses: { '200': { description: 'The verdict', content: jsonContent(viewOf(ChainVerdictView)) }, ...errors(401, 403) },
      },
    },
    '/api/v1/audit/breaks/{id}/acknowledge': {
      post: {
        tags: ['audit'],
        summary: 'Acknowledge a break in the chain, with a reason (admin; audited)',
        description:
          'The event must be a break verify reports and no one has acknowledged. The acknowledgement holds the event as it is now: verify reports it as known, and a later change to the same event as a new break.',
        security,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: "The broken event's id" }],
        requestBody: { required: true, content: jsonContent(schemaOf(acknowledgeBreakInput)) },
        responses: {
          '200': { description: 'Acknowledged', content: jsonContent({ type: 'object', properties: { eventId: { type: 'string' }, kinds: { type: 'array', items: { type: 'string' } }, problems: { type: 'array', items: { type: 'string' } }, auditEventId: { type: 'string' } } }) },
          ...errors(400, 401, 403, 404, 409, 415, 422),
        },
      },
    },
  },
};
