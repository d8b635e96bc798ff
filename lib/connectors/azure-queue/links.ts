// Re-deaths of redriven messages, known by their bytes. An Azure queue message carries only its text,
// and Azure Functions moves a poison message to `<queue>-poison` as a new message with a new id, so
// nothing on the message says that Triage sent it. Each redrive send leaves a row (the payload's
// SHA-256, the original id, the redrive count it went out with, when it expires on the queue); the
// import claims one for a poison message with the same bytes, which makes that message the next
// generation of the same dead letter. A claim is keyed by the claiming message's id, so the same
// message read again after a crash gets the same claim back and the unique key absorbs its write.
// Two dead letters with the same bytes redriven together are interchangeable: either may claim.
import { createHash } from 'node:crypto';
import type postgres from 'postgres';
import type { RedriveLink } from './message';

export const sha256 = (payload: Uint8Array) => createHash('sha256').update(payload).digest();

export interface SentRedrive {
  payloadSha256: Buffer;
  originalId: string;
  redriveCount: number;
  expiresAt: Date;
}

/**
 * Remember what a redrive sends; the ids of the rows, to forget those whose send failed. Written
 * while the sends run (their time to live is Azure's default, so the expiry is known up front).
 */
export async function recordSends(sql: postgres.Sql, sourceId: string, sent: SentRedrive[]): Promise<string[]> {
  if (!sent.length) return [];
  const rows = await sql<{ id: string }[]>`
    INSERT INTO azure_queue_redrives (source_id, payload_sha256, original_id, redrive_count, expires_at)
    SELECT ${sourceId}::uuid, decode(s.sha_hex, 'hex'), s.original_id, s.redrive_count, s.expires_at
    FROM unnest(${sql.array(sent.map((s) => s.payloadSha256.toString('hex')))}::text[], ${sql.array(sent.map((s) => s.originalId))}::text[],
                ${sql.array(sent.map((s) => s.redriveCount))}::int[], ${sql.array(sent.map((s) => s.expiresAt.toISOString()))}::timestamptz[])
         AS s(sha_hex, original_id, redrive_count, expires_at)
    RETURNING id::text`;
  return rows.map((r) => r.id);
}

/** Forget sends that did not happen, among the rows `recordSends` wrote. */
export async function forgetSends(sql: postgres.Sql, written: string[], failed: SentRedrive[]): Promise<void> {
  if (!written.length || !failed.length) return;
  await sql`
    DELETE FROM azure_queue_redrives
    WHERE id = ANY(${sql.array(written)}::bigint[])
      AND (original_id, redrive_count) IN (SELECT * FROM unnest(${sql.array(failed.map((f) => f.originalId))}::text[], ${sql.array(failed.map((f) => f.redriveCount))}::int[]))`;
}

/** Forget what expired on the queue a day ago or more: it can no longer die again. */
export async function pruneSends(sql: postgres.Sql, sourceId: string): Promise<void> {
  await sql`DELETE FROM azure_queue_redrives WHERE source_id = ${sourceId}::uuid AND expires_at < now() - interval '1 day'`;
}

/**
 * The redrives the received messages are re-deaths of, by message id. One query when none of the
 * payloads was ever redriven (the usual case); a claim per message that was.
 */
export async function claimLinks(
  sql: postgres.Sql,
  sourceId: string,
  messages: { messageId: string; payload: Uint8Array }[],
): Promise<Map<string, RedriveLink>> {
  const links = new Map<string, RedriveLink>();
  if (!messages.length) return links;
  const hashes = messages.map((m) => sha256(m.payload).toString('hex'));
  const known = await sql<{ sha_hex: string }[]>`
    SELECT DISTINCT encode(payload_sha256, 'hex') AS sha_hex FROM azure_queue_redrives
    WHERE source_id = ${sourceId}::uuid AND payload_sha256 IN (SELECT decode(h, 'hex') FROM unnest(${sql.array(hashes)}::text[]) AS h)`;
  if (!known.length) return links;
  const candidates = new Set(known.map((k) => k.sha_hex));
  for (const [i, m] of messages.entries()) {
    const sha = hashes[i]!;
    if (!candidates.has(sha)) continue;
    const [row] = await sql<{ original_id: string; redrive_count: number }[]>`
      WITH mine AS (
        SELECT id FROM azure_queue_redrives
        WHERE source_id = ${sourceId}::uuid AND payload_sha256 = decode(${sha}, 'hex') AND claimed_by = ${m.messageId}
        LIMIT 1
      ), free AS (
        SELECT id FROM azure_queue_redrives
        WHERE source_id = ${sourceId}::uuid AND payload_sha256 = decode(${sha}, 'hex') AND claimed_by IS NULL AND expires_at > now()
          AND NOT EXISTS (SELECT 1 FROM mine)
        ORDER BY sent_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
      )
      UPDATE azure_queue_redrives SET claimed_by = ${m.messageId}
      WHERE id = COALESCE((SELECT id FROM mine), (SELECT id FROM free))
      RETURNING original_id, redrive_count`;
    if (row) links.set(m.messageId, { originalId: row.original_id, redriveCount: row.redrive_count });
  }
  return links;
}
