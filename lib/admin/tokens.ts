import { db } from '@/lib/db';
import { append } from '@/lib/audit';
import { auditActor, authorize, isSystem, type Principal } from '@/lib/auth';
import { z } from 'zod';
import { newToken, TOKEN_SCOPES, type TokenScope } from '@/lib/auth/tokens';
import { AppError } from '@/lib/errors';
import { connectorFedSource } from '@/lib/ingest/ingest-target';
import { isConnectorKind } from '@/lib/connectors/types';
import { findSource } from '@/lib/model/find-source';

/** Create an ingest token for a source; the token is returned once and only its hash is kept. */
export async function createIngestToken(actor: Principal, sourceName: string, name?: string) {
  authorize(actor, 'admin.manage');
  return db().$transaction(async (tx) => {
    const source = await findSource(actor, sourceName, 'admin.manage', tx);
    if (isConnectorKind(source.kind)) throw connectorFedSource(source.name, source.kind);
    const t = newToken('ingest');
    const row = await tx.apiToken.create({
      data: { kind: 'ingest', tokenHash: t.hash, prefix: t.prefix, name, sourceId: source.id, createdById: isSystem(actor) ? null : actor.userId },
    });
    await append(tx, {
      actor: auditActor(actor),
      action: 'token.create',
      targetType: 'token',
      targetId: row.id,
      sourceId: source.id,
      teamId: source.teamId,
      after: { kind: 'ingest', prefix: t.prefix },
    });
    return { id: row.id, token: t.token, prefix: t.prefix };
  });
}

/**
 * A personal API token acts with its user's role, read from the database on each request; with the
 * assistant scope it is the user's MCP assistant's (lib/assistant), audited "via assistant".
 */
export async function createPersonalToken(actor: Principal, email: string, name?: string, opts: { scopes?: TokenScope[] } = {}) {
  authorize(actor, 'admin.manage');
  const scopes = [...new Set(z.array(z.enum(TOKEN_SCOPES)).parse(opts.scopes ?? []))];
  return db().$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { email: email.trim().toLowerCase() } });
    if (!user) throw new AppError('not_found', `No user ${email}`);
    const t = newToken('personal');
    const row = await tx.apiToken.create({
      data: { kind: 'personal', tokenHash: t.hash, prefix: t.prefix, name, userId: user.id, createdById: isSystem(actor) ? null : actor.userId, scopes },
    });
    const after = { kind: 'personal', userId: user.id, prefix: t.prefix, ...(scopes.length ? { scopes } : {}) };
    await append(tx, { actor: auditActor(actor), action: 'token.create', targetType: 'token', targetId: row.id, teamId: user.teamId, after });
    return { id: row.id, token: t.token, prefix: t.prefix };
  });
}

export async function revokeToken(actor: Principal, tokenId: string) {
  authorize(actor, 'admin.manage');
  if (!/^[0-9a-f-]{36}$/i.test(tokenId)) throw new AppError('not_found', 'No such token');
  return db().$transaction(async (tx) => {
    const row = await tx.apiToken.findUnique({ where: { id: tokenId } });
    if (!row) throw new AppError('not_found', 'No such token');
    if (row.revokedAt) return row;
    const updated = await tx.apiToken.update({ where: { id: tokenId }, data: { revokedAt: new Date() } });
    await append(tx, {
      actor: auditActor(actor),
      action: 'token.revoke',
      targetType: 'token',
      targetId: row.id,
      sourceId: row.sourceId,
      after: { prefix: row.prefix },
    });
    return updated;
  });
}

export function listTokens() {
  return db().apiToken.findMany({
    orderBy: { createdAt: 'desc' },
    select: {
      id: true,
      kind: true,
      scopes: true,
      prefix: true,
      name: true,
      createdAt: true,
      revokedAt: true,
      lastUsedAt: true,
      source: { select: { name: true } },
      user: { select: { email: true } },
    },
  });
}
