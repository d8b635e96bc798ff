// The OpenAPI tags: one per area of the API, in the document's order. Route specs name their tag
// (lib/auth/guard.ts RouteSpec.tags); what each area is about cannot be derived, so it is said here.
import { OWNERSHIP_STATUSES } from '@/lib/model/ownership-statuses';

export const TAGS: { name: string; description: string }[] = [
  { name: 'ingest', description: 'How external systems forward their dead letters. Idempotent on (source, messageId); a batch is all-or-nothing.' },
  { name: 'dead letters', description: "Read, decide on and export dead letters. Team-scoped roles see their team only: another team's id answers 404." },
  {
    name: 'clusters',
    description:
      "Dead letters grouped by cause (error type, masked message template, top in-app frame). Team-scoped roles see their sources' share only; another team's cluster answers 404. Members: GET /api/v1/dead-letters?clusterId=….",
  },
  { name: 'ownership', description: `Who is on a cluster and why it waits: assignee, status (${OWNERSHIP_STATUSES.join(', ')}), ticket link, hold, notes.` },
  {
    name: 'redrives',
    description:
      'Send dead letters back to their own source after the fix: rate-limited, resumable, guarded by a loop limit, a circuit breaker, a canary and approval.',
  },
  {
    name: 'sources',
    description:
      "Where dead letters come from, with their policy and alarms. Team-scoped roles see their team's sources only: another team's source answers 404.",
  },
  {
    name: 'connectors',
    description:
      "Sources that read a broker's own dead-letter queue (RabbitMQ, another app's BullMQ, Amazon SQS, NATS JetStream, Azure Storage queues such as Azure Functions' poison queues). Credentials are encrypted at rest and never returned, only whether they are set.",
  },
  {
    name: 'notifications',
    description:
      "Webhooks that receive a team's alarm notifications, signed with a per-webhook secret. Managed by the team's lead and admins; another team's webhook answers 404. Every change is audited.",
  },
  {
    name: 'audit',
    description: "The append-only, hash-chained trail of every decision and change. Leads read their team's events; auditors and admins the whole trail.",
  },
  {
    name: 'views',
    description:
      'Saved views of the dead-letter list, the inbox and the audit trail.  Only views the caller sees: their own and those shared with their team; any other id answers 404.',
  },
  { name: 'admin', description: 'Users and their roles (support, lead, auditor, admin). Admins only; every change is audited.' },
  { name: 'operations', description: 'Readiness probe, Prometheus metrics and the API description.' },
  {
    name: 'assistant',
    description: "Triage as an MCP server for a person's assistant (Streamable HTTP, stateless). docs/assistant.md says how to connect clients.",
  },
];
