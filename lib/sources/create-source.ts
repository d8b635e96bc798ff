// Create a source (admin; the CLI, the admin page and the API share this). A connector source
// (RabbitMQ, BullMQ…) also takes its connection: non-secret settings, validated by its connector's
// schema, and secrets (the URL with credentials…), encrypted at rest and shown in the audit event
// only redacted.
import { z } from 'zod';
import { db } from '@/lib/db';
import { append } from '@/lib/audit';
import { auditActor, authorize, type Principal } from '@/lib/auth';
import { connectorFor, isConnectorKind } from '@/lib/connectors';
import { encryptSecret, redactUrl, type ConnectorSecret } from '@/lib/connectors/secrets';
import { AppError, unprocessable } from '@/lib/errors';
import { systemClock, type Clock } from '@/lib/clock';
import { issueText } from '@/lib/zod-issues';
import { SOURCE_KINDS } from '@/lib/model/source-kind';
import { policyInput } from './update-policy';

export const sourceInput = z.object({
  // Source names become BullMQ queue names and URL segments: keep them plain.
  name: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'lowercase letters, digits, ".", "_" or "-", at most 63'),
  team: z.string().trim().min(1),
  kind: z.enum(SOURCE_KINDS).default('builtin'),
  description: z.string().max(500).optional(),
  // Within the bounds a policy change keeps them to.
  maxReceives: policyInput.shape.maxReceives,
  visibilityTimeoutMs: policyInput.shape.visibilityTimeoutMs,
  backoffBaseMs: z.number().int().min(1).max(3600_000).optional(),
  maxRedrives: policyInput.shape.maxRedrives,
  orderMode: z.enum(['none', 'key']).optional(),
  /** Connector kinds: the non-secret settings, e.g. { queue: 'orders.dlq' }. */
  connection: z.record(z.string(), z.unknown()).optional(),
  /** Connector kinds: the secret fields, e.g. { url: 'amqp://user:pass@host/vhost' }. */
  secret: z.record(z.string(), z.string()).optional(),
});

/** A connector source's secrets as an audit event or a page may show them: URLs redacted, the rest "set". */
export function redactedSecret(secret: ConnectorSecret): Record<string, string> {
  return Object.fromEntries(Object.entries(secret).map(([k, v]) => [k, /^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? redactUrl(v) : 'set']));
}

/** The connection of a connector kind, checked by its connector: what is stored, and the sealed secret. */
export function connectionOf(kind: string, connection: Record<string, unknown> | undefined, secret: Record<string, string> | undefined) {
  if (!isConnectorKind(kind)) {
    if (connection || secret) throw unprocessable(`A ${kind} source takes no connection settings`, { field: 'connection' });
    return {};
  }
  const connector = connectorFor(kind);
  const config = connector.configSchema.safeParse(connection ?? {});
  if (!config.success) throw unprocessable(`Invalid connection settings: ${issueText(config.error.issues, { prefix: 'connection' })}`, { field: 'connection' });
  const sealed = connector.secretSchema.safeParse(secret ?? {});
  if (!sealed.success) throw unprocessable(`Invalid credentials: ${issueText(sealed.error.issues, { prefix: 'secret' })}`, { field: 'secret' });
  return { connection: config.data as object, secret: sealed.data as ConnectorSecret };
}

/** POST /api/v1/sources. */
export const CreatedSourceView = z.object({ id: z.uuid(), name: z.string(), kind: z.enum(SOURCE_KINDS) });

export async function createSource(actor: Principal, input: z.input<typeof sourceInput>, clock: Clock = systemClock) {
  authorize(actor, 'admin.manage');
  const { team, connection: connectionInput, secret: secretInput, ...data } = sourceInput.parse(input);
  const { connection, secret } = connectionOf(data.kind, connectionInput, secretInput);
  return db().$transaction(async (tx) => {
    const t = await tx.team.findFirst({ where: /^[0-9a-f-]{36}$/i.test(team) ? { OR: [{ id: team }, { name: team }] } : { name: team } });
    if (!t) throw unprocessable(`No team "${team}"`, { field: 'team' });
    if (await tx.source.findUnique({ where: { name: data.name } })) throw new AppError('conflict', `Source "${data.name}" already exists`);
    const source = await tx.source.create({
      data: {
        ...data,
        teamId: t.id,
        ...(connection ? { connection } : {}),
        ...(secret ? { connectionSecret: new Uint8Array(encryptSecret(secret)) } : {}),
      },
    });
    await append(
      tx,
      {
        actor: auditActor(actor),
        action: 'source.create',
        targetType: 'source',
        targetId: source.id,
        sourceId: source.id,
        teamId: t.id,
        after: { name: source.name, team: t.name, kind: source.kind, ...(connection ? { connection, secret: redactedSecret(secret!) } : {}) },
      },
      clock,
    );
    return source;
  });
}
