// Bearer tokens: ingest tokens (one source) and personal API tokens (act with a user's role).
// Only a SHA-256 of the token is stored; the token is shown once.
import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = { ingest: 'tri_i_', personal: 'tri_p_' } as const;

/** A personal token's scope that makes it its user's MCP assistant (lib/assistant). */
export const ASSISTANT_SCOPE = 'assistant';
export const TOKEN_SCOPES = [ASSISTANT_SCOPE] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export function newToken(kind: keyof typeof TOKEN_PREFIX): { token: string; hash: string; prefix: string } {
  const token = TOKEN_PREFIX[kind] + randomBytes(24).toString('base64url');
  return { token, hash: hashToken(token), prefix: token.slice(0, 10) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function bearerToken(authorization: string | null): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return m?.[1];
}
