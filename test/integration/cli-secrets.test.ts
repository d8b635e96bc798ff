// Secrets never on the CLI's command line (any user of the machine reads it in `ps`): a password, a
// token, a key, or a URL with credentials is refused there, and taken as env:NAME, from the
// environment variable NAME, instead.
import { spawnSync } from 'node:child_process';
import { beforeEach, describe, expect, it } from 'vitest';
import { createTeam } from '@/lib/admin/teams';
import { SYSTEM } from '@/lib/auth';
import { verifyPassword } from '@/lib/auth/password';
import { db } from '@/lib/db';
import { resetDatabase } from '../support/db';

const CLI = ['node_modules/tsx/dist/cli.mjs', 'scripts/triage-cli.ts'];
const cli = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [...CLI, ...args, '--json'], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });

describe('secrets on the command line', () => {
  beforeEach(async () => {
    await resetDatabase();
    await createTeam(SYSTEM, { name: 'commerce' });
  });

  it('refuses a password, a token, a key or a URL with credentials given as an argument, and creates nothing', async () => {
    const refused = [
      ['user', 'create', '--email', 'a@example.com', '--role', 'support', '--team', 'commerce', '--password', 'correct horse battery'],
      ['source', 'create', '--name', 'r1', '--team', 'commerce', '--kind', 'rabbitmq', '--url', 'amqp://app:s3cret@127.0.0.1:5672/%2F', '--queue', 'q.dlq'],
      [
        'source',
        'create',
        '--name',
        'n1',
        '--team',
        'commerce',
        '--kind',
        'nats',
        '--url',
        'nats://127.0.0.1:4222',
        '--stream',
        'S',
        '--consumer',
        'C',
        '--token',
        'tok-123',
      ],
      [
        'source',
        'create',
        '--name',
        's1',
        '--team',
        'commerce',
        '--kind',
        'sqs',
        '--queue-url',
        'http://127.0.0.1:1/000000000000/q',
        '--access-key-id',
        'AKIA1',
        '--secret-access-key',
        'sk-123',
      ],
    ];
    for (const args of refused) {
      const r = cli(args);
      expect(r.status, args.join(' ')).not.toBe(0);
      expect(r.stderr + r.stdout, args.join(' ')).toMatch(/visible in `ps`.*env:/s);
    }
    expect(await db().user.count({ where: { email: 'a@example.com' } })).toBe(0);
    expect(await db().source.count({ where: { name: { in: ['r1', 'n1', 's1'] } } })).toBe(0);
  }, 120_000);

  it('takes them from the environment as env:NAME', async () => {
    const r = cli(['user', 'create', '--email', 'b@example.com', '--role', 'support', '--team', 'commerce', '--password', 'env:TRIAGE_NEW_PASSWORD'], {
      TRIAGE_NEW_PASSWORD: 'correct horse battery',
    });
    expect(r.status, r.stderr).toBe(0);
    const user = await db().user.findUniqueOrThrow({ where: { email: 'b@example.com' } });
    expect(await verifyPassword('correct horse battery', user.passwordHash)).toBe(true);
    const missing = cli(['user', 'create', '--email', 'c@example.com', '--role', 'support', '--team', 'commerce', '--password', 'env:TRIAGE_UNSET_VARIABLE']);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr + missing.stdout).toMatch(/TRIAGE_UNSET_VARIABLE is not set/);
    const rabbit = cli(['source', 'create', '--name', 'r2', '--team', 'commerce', '--kind', 'rabbitmq', '--url', 'env:RABBIT_URL', '--queue', 'q.dlq'], {
      RABBIT_URL: 'amqp://guest:guest@127.0.0.1:5672/%2F',
    });
    expect(rabbit.status, rabbit.stderr).toBe(0);
    expect(rabbit.stdout).not.toContain('guest:guest');
  }, 120_000);
});
