// The replica's settings and the WAL positions read-your-writes compares (lib/db/replica.ts).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseLsn } from '@/lib/db/replica';

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

describe('DATABASE_REPLICA_URL', () => {
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
