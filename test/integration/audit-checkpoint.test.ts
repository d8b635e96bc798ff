import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { append, eventHash, readCheckpoints, SYSTEM_ACTOR, verifyChain, writeCheckpoint } from '@/lib/audit';
import { appendCheckpoint, currentDatabase } from '@/lib/audit/checkpoint-file';
import { closeDb, db } from '@/lib/db';
import { resetDatabase } from '../support/db';
import { asSuperuser } from '../support/audit';

let file: string;

async function appendN(n: number) {
  for (let i = 0; i < n; i++) {
    await db().$transaction((tx) => append(tx, { actor: SYSTEM_ACTOR, action: 'test.event', targetId: String(i), after: { i } }));
  }
  return db().auditEvent.findMany({ orderBy: { id: 'asc' } });
}

/** Rewrites every event from `fromId` on so the chain is consistent again, as a careful forger would. */
async function recomputeChainFrom(fromId: bigint) {
  const rows = await db().auditEvent.findMany({ orderBy: { id: 'asc' } });
  let prev = rows.filter((r) => r.id < fromId).at(-1)?.hash ?? '0'.repeat(64);
  const updates: string[] = [];
  for (const r of rows.filter((r) => r.id >= fromId)) {
    const hash = eventHash({ ...r, prevHash: prev });
    updates.push(`UPDATE audit_events SET prev_hash = '${prev}', hash = '${hash}' WHERE id = ${r.id}`);
    prev = hash;
  }
  await asSuperuser(...updates);
}

describe('audit checkpoints', () => {
  beforeEach(async () => {
    await resetDatabase();
    file = path.join(mkdtempSync(path.join(tmpdir(), 'triage-cp-')), 'checkpoints.ndjson');
  });
  afterAll(closeDb);

  it('writes nothing for an empty trail, then signs the head; the next run only checks what is new', async () => {
    expect((await writeCheckpoint({ file })).written).toBe(false);
    const events = await appendN(4);
    const first = await writeCheckpoint({ file });
    expect(first).toMatchObject({ written: true, checkpoint: { headId: events[3]!.id.toString(), headHash: events[3]!.hash, count: 4 } });
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1);

    expect((await writeCheckpoint({ file })).written).toBe(false);
    await appendN(2);
    const second = await writeCheckpoint({ file });
    expect(second).toMatchObject({ written: true, checkpoint: { count: 6 } });
    expect(await verifyChain({ checkpointFile: file })).toMatchObject({ ok: true, checked: 6, checkpoint: { count: 6 } });
  });

  it('catches a cut tail: the last events deleted leave a consistent chain, but fewer than signed', async () => {
    const events = await appendN(6);
    await writeCheckpoint({ file });
    await asSuperuser(`DELETE FROM audit_events WHERE id >= ${events[4]!.id}`);
    expect(await verifyChain({ checkpoints: [] })).toMatchObject({ ok: true, checked: 4 });
    const r = await verifyChain({ checkpointFile: file });
    expect(r).toMatchObject({ ok: false, firstBrokenId: events[5]!.id.toString() });
    expect(r.problem).toMatch(/^tail cut: .* counted 6 events up to #6; the trail now ends at #4 with 4$/);
  });

  it('catches a recomputed chain: an edit with every later hash rewritten', async () => {
    const events = await appendN(6);
    await writeCheckpoint({ file });
    await appendN(2);
    await writeCheckpoint({ file });
    await asSuperuser(`UPDATE audit_events SET after = '{"i": 999}' WHERE id = ${events[4]!.id}`);
    await recomputeChainFrom(events[4]!.id);
    expect(await verifyChain({ checkpoints: [] })).toMatchObject({ ok: true, checked: 8 });
    const r = await verifyChain({ checkpointFile: file });
    expect(r).toMatchObject({ ok: false, firstBrokenId: events[5]!.id.toString() });
    expect(r.problem).toMatch(/differs from the checkpoint of .*: the chain was recomputed \(changed before it\)/);
  });

  it('names the last good checkpoint when the edit came after it', async () => {
    const events = await appendN(3);
    await writeCheckpoint({ file });
    const later = await appendN(3);
    await writeCheckpoint({ file });
    await asSuperuser(`UPDATE audit_events SET target_id = 'edited' WHERE id = ${later[4]!.id}`);
    await recomputeChainFrom(later[4]!.id);
    const r = await verifyChain({ checkpointFile: file });
    expect(r).toMatchObject({ ok: false, firstBrokenId: later[5]!.id.toString(), checkpoint: { headId: events[2]!.id.toString() } });
    expect(r.problem).toMatch(/changed after #3/);
  });

  it('catches a deleted middle row when the chain was recomputed over the gap', async () => {
    const events = await appendN(5);
    await writeCheckpoint({ file });
    await asSuperuser(`DELETE FROM audit_events WHERE id = ${events[1]!.id}`);
    await recomputeChainFrom(events[2]!.id);
    expect(await verifyChain({ checkpoints: [] })).toMatchObject({ ok: true, checked: 4 });
    const r = await verifyChain({ checkpointFile: file });
    expect(r.ok).toBe(false);
    expect(r.firstBrokenId).toBe(events[4]!.id.toString());
  });

  it('catches the checkpoint head itself deleted and the rest recomputed', async () => {
    const events = await appendN(3);
    await writeCheckpoint({ file });
    await appendN(2);
    await asSuperuser(`DELETE FROM audit_events WHERE id = ${events[2]!.id}`);
    await recomputeChainFrom(events[2]!.id);
    const r = await verifyChain({ checkpointFile: file });
    expect(r).toMatchObject({ ok: false, firstBrokenId: events[2]!.id.toString() });
    expect(r.problem).toMatch(/event #3, the head at the checkpoint of .*, is missing/);
  });

  it('ignores checkpoint lines without a valid signature, and counts them', async () => {
    const events = await appendN(3);
    await writeCheckpoint({ file });
    const [line] = readFileSync(file, 'utf8').trim().split('\n');
    const forged = { ...JSON.parse(line!), count: 99, headId: '99' };
    appendFileSync(file, `${JSON.stringify(forged)}\nnot json\n`);
    const r = await verifyChain({ checkpointFile: file });
    expect(r).toMatchObject({ ok: true, checked: 3, invalidCheckpoints: 2, checkpoint: { headId: events[2]!.id.toString() } });
    // Another key cannot read this file's checkpoints as valid either.
    const other = await readCheckpoints({ file, db: await currentDatabase(), key: 'another-key-of-16-chars' });
    expect(other).toMatchObject({ checkpoints: [], invalid: 3 });
  });

  it("ignores another database's checkpoints, and a line whose database was edited", async () => {
    await appendN(2);
    await appendCheckpoint({ v: 1, db: 'elsewhere', headId: '99', headHash: 'f'.repeat(64), count: 99, at: new Date().toISOString() }, { file });
    expect(await verifyChain({ checkpointFile: file })).toMatchObject({ ok: true, checked: 2 });
    expect((await verifyChain({ checkpointFile: file })).invalidCheckpoints).toBeUndefined();
    const [line] = readFileSync(file, 'utf8').trim().split('\n');
    // The signature covers the database name: moving a checkpoint to this database invalidates it.
    writeFileSync(file, `${line!.replace('"db":"elsewhere"', `"db":"${await currentDatabase()}"`)}\n`);
    expect(await verifyChain({ checkpointFile: file })).toMatchObject({ ok: true, invalidCheckpoints: 1 });
  });

  it('signs the head after a break, which stays in every full verify; refuses when the last checkpoint no longer holds', async () => {
    const events = await appendN(3);
    await asSuperuser(`UPDATE audit_events SET reason = 'x' WHERE id = ${events[1]!.id}`);
    const r = await writeCheckpoint({ file });
    expect(r).toMatchObject({
      written: true,
      checkpoint: { headId: events[2]!.id.toString() },
      verify: { ok: false, firstBrokenId: events[1]!.id.toString() },
    });
    expect(await verifyChain({ checkpointFile: file })).toMatchObject({ ok: false, firstBrokenId: events[1]!.id.toString(), breakCount: 1 });
    await appendN(1);
    await asSuperuser(`UPDATE audit_events SET target_id = 'edited' WHERE id = ${events[2]!.id}`);
    await recomputeChainFrom(events[2]!.id);
    const after = await writeCheckpoint({ file });
    expect(after).toMatchObject({ written: false, verify: { ok: false, fromBroken: true, firstBrokenId: events[2]!.id.toString() } });
  });

  it('runs from the CLI: audit checkpoint, then audit verify', async () => {
    await appendN(3);
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/triage-cli.ts', ...args, '--json'], {
        encoding: 'utf8',
        env: { ...process.env, AUDIT_CHECKPOINT_FILE: file },
      });
    const cp = cli('audit', 'checkpoint');
    expect(cp.status).toBe(0);
    expect(JSON.parse(cp.stdout)).toMatchObject({ written: true, ok: true, checkpoint: { count: 3 } });
    await asSuperuser(`DELETE FROM audit_events WHERE id = (SELECT max(id) FROM audit_events)`);
    const v = cli('audit', 'verify');
    expect(v.status).toBe(1);
    expect(JSON.parse(v.stdout)).toMatchObject({ ok: false, firstBrokenId: '3' });
  });
});
