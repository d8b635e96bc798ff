// The replica's settings and the WAL positions read-your-writes compares (lib/db/replica.ts).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseLsn, replayLag } from '@/lib/db/replica';

function replicaEnv(extra: Record<string, string>): { status: number | null; out: string; err: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'development', TRIAGE_STATE_DIR: '.triage/test' };
  delete env.DATABASE_REPLICA_URL;
  Object.assign(env, extra);
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', '-e', "import('./lib/env.ts').then(({ env }) => console.log(JSON.stringify(env().DATABASE_REPLICA_URL ?? null)))"],
    { env, encoding: 'utf8' },
  );
  return { status: r.status, out: r.stdout.trim(), err: r.stderr };
}

describe('WAL positions', () => {
  it('orders as the WAL does, across the 4 GiB boundary of the low word', () => {
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
    expect(parseLsn('1/0')! > parseLsn('0/FFFFFFFF')!).toBe(true);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
    expect(parseLsn(null)).toBeNull();
  });
});

describe('replay lag', () => {
  it('is 0 when caught up, and the time since the last check that saw it caught up when not', () => {
    const history: { lsn: bigint; at: number }[] = [];
    // Caught up at 0 s; the last commit replayed an hour ago counts for nothing.
    expect(replayLag(history, { lsn: 100n, at: 0 }, 100n, 3_600_000)).toBe(0);
    expect(replayLag(history, { lsn: 100n, at: 2_000 }, 100n, 3_602_000)).toBe(0);
    // WAL without a commit (a checkpoint), first seen past the replica at 4 s: it may have been
    // written just after the check at 2 s, so it counts from there.
    expect(replayLag(history, { lsn: 140n, at: 4_000 }, 100n, 3_604_000)).toBe(2_000);
    expect(replayLag(history, { lsn: 140n, at: 6_500 }, 100n, 3_606_500)).toBe(4_500);
    // It replays part of it: still short of the position seen at 4 s, so still from 2 s.
    expect(replayLag(history, { lsn: 160n, at: 7_000 }, 120n, 3_607_000)).toBe(5_000);
    // Past the position the check at 6.5 s saw: from then.
    expect(replayLag(history, { lsn: 180n, at: 7_500 }, 150n, 3_607_500)).toBe(1_000);
    expect(replayLag(history, { lsn: 180n, at: 8_000 }, 180n, 3_608_000)).toBe(0);
  });

  it('counts a gap between checks as lag: the first check after one, or after the replica was down', () => {
    // Caught up at t0, then no check for 9 minutes (nobody read, or every check failed).
    const t0 = 1_000_000;
    expect(replayLag([{ lsn: 100n, at: t0 }], { lsn: 5_000n, at: t0 + 540_000 }, 100n, 540_000)).toBe(540_000);
    // The time since its last replayed commit bounds it when that is shorter.
    expect(replayLag([{ lsn: 100n, at: t0 }], { lsn: 5_000n, at: t0 + 540_000 }, 100n, 60_000)).toBe(60_000);
  });

  it('falls back on the time since the last replayed commit when no earlier check bounds it', () => {
    expect(replayLag([], { lsn: 140n, at: 1_000 }, 100n, 42_000)).toBe(42_000);
    expect(replayLag([], { lsn: 140n, at: 1_000 }, null, null)).toBe(Number.POSITIVE_INFINITY);
  });
});

// Each case starts Node processes with tsx, which take seconds each on a loaded machine.
describe('DATABASE_REPLICA_URL', { timeout: 30_000 }, () => {
  it('is off when unset or empty, and gets the default user like DATABASE_URL', () => {
    expect(replicaEnv({}).out).toBe('null');
    expect(replicaEnv({ DATABASE_REPLICA_URL: '' }).out).toBe('null');
    expect(JSON.parse(replicaEnv({ DATABASE_REPLICA_URL: 'postgresql://replica.internal:5432/triage' }).out)).toMatch(
      /^postgresql:\/\/\w+@replica\.internal:5432\/triage$/,
    );
  });
  it('refuses a value that is no URL, naming the variable', () => {
    const r = replicaEnv({ DATABASE_REPLICA_URL: 'the replica' });
    expect(r.status).not.toBe(0);
    expect(r.err).toMatch(/DATABASE_REPLICA_URL/);
  });
});
