// A real deployment's first admin: `triage admin bootstrap --email E` (scripts/triage-cli.ts) creates
// it only while no admin exists, with a generated password printed once or one read from stdin, never
// from argv (visible in `ps`), audited like any user created from the CLI.
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeEach, describe, expect, it } from 'vitest';
import { db } from '@/lib/db';
import { verifyPassword } from '@/lib/auth/password';
import { resetDatabase } from '../support/db';

const CLI = ['node_modules/tsx/dist/cli.mjs', 'scripts/triage-cli.ts'];
const cli = (args: string[], input?: string) =>
  spawnSync(process.execPath, [...CLI, ...args], { encoding: 'utf8', input: input ?? '', env: process.env, timeout: 60_000 });
const admins = () => db().user.findMany({ where: { role: 'admin' } });

/** `triage admin bootstrap …args`, refused: exit code 2 and `why` on stderr. The run. */
function refusedBootstrap(args: string[], why: string | RegExp) {
  const r = cli(['admin', 'bootstrap', ...args]);
  expect(r.status).toBe(2);
  expect(r.stderr).toMatch(why);
  return r;
}

describe('triage admin bootstrap', () => {
  beforeEach(resetDatabase);

  it('creates the first admin with a generated password, printed once, and audits it', async () => {
    const r = cli(['admin', 'bootstrap', '--email', 'Root@Example.com', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { id: string; email: string; role: string; password: string };
    expect(out).toMatchObject({ email: 'root@example.com', role: 'admin' });
    expect(out.password.length).toBeGreaterThanOrEqual(20);
    const [admin, ...others] = await admins();
    expect(others).toEqual([]);
    expect(admin).toMatchObject({ id: out.id, email: 'root@example.com', disabled: false, teamId: null });
    expect(await verifyPassword(out.password, admin!.passwordHash)).toBe(true);
    const events = await db().auditEvent.findMany({ where: { targetId: admin!.id } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ action: 'user.create', actorEmail: 'cli', actorRole: 'system', targetType: 'user' });
    expect(events[0]!.after).toMatchObject({ email: 'root@example.com', role: 'admin', bootstrap: true });
    // The password is on no record but the hash.
    expect(JSON.stringify(events[0], (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(out.password);
  }, 60_000);

  it('prints the generated password in the human output too', async () => {
    const r = cli(['admin', 'bootstrap', '--email', 'root@example.com']);
    expect(r.status, r.stderr).toBe(0);
    const password = /password: (\S+)/.exec(r.stdout)?.[1];
    expect(password, r.stdout).toBeDefined();
    expect(await verifyPassword(password!, (await admins())[0]!.passwordHash)).toBe(true);
  }, 60_000);

  it('reads the password from stdin with --password-stdin and does not print it', async () => {
    const r = cli(['admin', 'bootstrap', '--email', 'root@example.com', '--password-stdin', '--json'], 'correct horse battery\n');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('correct horse battery');
    expect(JSON.parse(r.stdout)).not.toHaveProperty('password');
    expect(await verifyPassword('correct horse battery', (await admins())[0]!.passwordHash)).toBe(true);
  }, 60_000);

  it('refuses a password on the command line', async () => {
    refusedBootstrap(['--email', 'root@example.com', '--password', 'correct horse battery'], '--password-stdin');
    expect(await db().user.count()).toBe(0);
  }, 60_000);

  it('refuses when an admin exists already, and changes nothing', async () => {
    expect(cli(['admin', 'bootstrap', '--email', 'root@example.com']).status).toBe(0);
    const events = await db().auditEvent.count();
    const r = refusedBootstrap(['--email', 'second@example.com'], /admin already exists/i);
    expect(r.stdout).not.toMatch(/password/);
    expect((await admins()).map((u) => u.email)).toEqual(['root@example.com']);
    expect(await db().auditEvent.count()).toBe(events);
  }, 120_000);

  it('refuses while a disabled admin exists (re-enable it with user update instead)', async () => {
    expect(cli(['admin', 'bootstrap', '--email', 'root@example.com']).status).toBe(0);
    await db().user.updateMany({ data: { disabled: true } });
    refusedBootstrap(['--email', 'second@example.com'], 'user update');
    expect(await db().user.count()).toBe(1);
  }, 120_000);

  it('makes one admin when two bootstraps run at once', async () => {
    const run = promisify(execFile);
    const results = await Promise.all(
      ['one@example.com', 'two@example.com'].map((email) =>
        run(process.execPath, [...CLI, 'admin', 'bootstrap', '--email', email, '--json'], { env: process.env, timeout: 60_000 }).then(
          () => 0,
          (e: { code: number }) => e.code,
        ),
      ),
    );
    expect(results.sort()).toEqual([0, 2]);
    expect(await admins()).toHaveLength(1);
  }, 120_000);
});
