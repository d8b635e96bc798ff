// Verifying a 1,000,000-event audit trail (target ≤ 60 s). The chain is built in Node (the same
// canonical hashing as append) and COPYed in, then verified as the API does, against a plain keyset
// scan of the same rows as the baseline (the cost of reading without hashing). Also times the
// incremental checkpoint on top of the verified chain.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import postgres from 'postgres';
import { GENESIS_HASH, eventHash, verifyChain, writeCheckpoint } from '@/lib/audit';
import type { HashedFields } from '@/lib/audit/canonical';
import { dropDatabase, freshTestDatabase } from '../../scripts/lib/database.mjs';
import type { BenchResult } from './run';

const EVENTS = 1_000_000;
const BATCH = 10_000;

const ACTIONS = ['deadletter.archive', 'redrive.start', 'redrive.approve', 'redrive.finish', 'auth.sign_in', 'source.policy_update', 'audit.export'];
const USERS = Array.from({ length: 50 }, (_, i) => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  email: `user${i}@triage.local`,
  role: ['support', 'lead', 'auditor', 'admin'][i % 4]!,
}));
const TEAM = '11111111-1111-4111-8111-111111111111';
const SOURCE = '22222222-2222-4222-8222-222222222222';

function event(i: number, prevHash: string, at: Date): HashedFields {
  const u = USERS[i % USERS.length]!;
  const action = ACTIONS[i % ACTIONS.length]!;
  const bulky = i % 3 === 0;
  return {
    at,
    actorId: u.id,
    actorEmail: u.email,
    actorRole: u.role,
    action,
    targetType: action.startsWith('redrive') ? 'redrive_task' : 'dead_letter',
    targetId: String(i),
    teamId: TEAM,
    sourceId: SOURCE,
    selection: bulky ? { cluster: `c-${i % 97}`, status: 'open' } : null,
    count: bulky ? i % 1000 : null,
    reason: i % 2 ? 'handler v2 deployed' : null,
    before: bulky ? { status: 'open', receiveCount: 3 } : null,
    after: bulky ? { status: 'archived', by: u.email } : null,
    result: i % 5 === 0 ? 'ok' : null,
    prevHash,
  };
}

// COPY text format: tab-separated, \N for NULL, backslash escapes.
const cell = (v: unknown) =>
  v === null || v === undefined
    ? '\\N'
    : (typeof v === 'object' && !(v instanceof Date) ? JSON.stringify(v) : v instanceof Date ? v.toISOString() : String(v))
        .replaceAll('\\', '\\\\')
        .replaceAll('\t', '\\t')
        .replaceAll('\n', '\\n')
        .replaceAll('\r', '\\r');

function* copyRows(): Generator<string> {
  let prev = GENESIS_HASH;
  const start = Date.now() - EVENTS;
  let chunk = '';
  for (let i = 1; i <= EVENTS; i++) {
    const e = event(i, prev, new Date(start + i));
    const hash = eventHash(e);
    chunk += `${[
      i,
      e.at,
      e.actorId,
      e.actorEmail,
      e.actorRole,
      e.action,
      e.targetType,
      e.targetId,
      e.teamId,
      e.sourceId,
      e.selection,
      e.count,
      e.reason,
      e.before,
      e.after,
      e.result,
      e.prevHash,
      hash,
    ]
      .map(cell)
      .join('\t')}\n`;
    prev = hash;
    if (i % BATCH === 0) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

const seconds = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;

export async function run(): Promise<BenchResult[]> {
  const url = await freshTestDatabase(process.env.DATABASE_URL ?? 'postgresql://localhost:5432/triage', 'bench_audit');
  const sql = postgres(url, { max: 4, onnotice: () => {}, types: { bigint: postgres.BigInt } });
  const dir = mkdtempSync(path.join(tmpdir(), 'triage-audit-bench-'));
  try {
    let t0 = process.hrtime.bigint();
    const copy = await sql`
      COPY audit_events (id, at, actor_id, actor_email, actor_role, action, target_type, target_id, team_id, source_id,
                         selection, count, reason, before, after, result, prev_hash, hash) FROM STDIN`.writable();
    await pipeline(Readable.from(copyRows()), copy);
    await sql`SELECT setval(pg_get_serial_sequence('audit_events', 'id'), ${EVENTS})`;
    await sql`VACUUM ANALYZE audit_events`;
    const loadSeconds = seconds(t0);

    t0 = process.hrtime.bigint();
    let after = 0n;
    let scanned = 0;
    for (;;) {
      const rows = await sql<{ id: bigint }[]>`
        SELECT id, at, actor_id, actor_email, actor_role, action, target_type, target_id, team_id,
               source_id, selection, count, reason, before, after, result, prev_hash, hash
        FROM audit_events WHERE id > ${after.toString()} ORDER BY id LIMIT ${BATCH}`;
      scanned += rows.length;
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]!.id;
    }
    const scanSeconds = seconds(t0);

    t0 = process.hrtime.bigint();
    const verified = await verifyChain({ sql, checkpoints: [] });
    const verifySeconds = seconds(t0);
    if (!verified.ok || verified.checked !== EVENTS) throw new Error(`verify: ${JSON.stringify(verified)}`);

    const file = path.join(dir, 'checkpoints.ndjson');
    const key = 'bench-checkpoint-key-0123456789';
    t0 = process.hrtime.bigint();
    const first = await writeCheckpoint({ sql, file, key });
    const firstCheckpointSeconds = seconds(t0);
    t0 = process.hrtime.bigint();
    const again = await writeCheckpoint({ sql, file, key });
    const incrementalSeconds = seconds(t0);
    if (!first.written || again.written || !again.verify.ok) throw new Error('checkpoint did not behave');

    return [
      { name: `load ${EVENTS} chained events (hash in Node + COPY)`, value: loadSeconds, unit: 's' },
      {
        name: `verify ${EVENTS} events`,
        value: verifySeconds,
        unit: 's',
        baseline: { name: `keyset scan of the same ${scanned} rows without hashing`, value: scanSeconds },
        target: '≤ 60 s',
        met: verifySeconds <= 60,
      },
      { name: 'verify throughput', value: EVENTS / verifySeconds, unit: 'events/s' },
      { name: 'first checkpoint (verifies everything)', value: firstCheckpointSeconds, unit: 's' },
      { name: 'next checkpoint, nothing new (incremental)', value: incrementalSeconds * 1000, unit: 'ms' },
    ];
  } finally {
    await sql.end({ timeout: 5 });
    rmSync(dir, { recursive: true, force: true });
    await dropDatabase(url);
  }
}
