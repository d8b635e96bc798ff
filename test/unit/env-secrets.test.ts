import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { productionSecretProblems } from '@/lib/env-secrets.mjs';

const run = promisify(execFile);

/** test/support/print-secrets.ts run with `env`: the secrets lib/env settles on, printed as JSON. */
const printSecrets = (env: NodeJS.ProcessEnv) => run(process.execPath, ['--import', 'tsx', 'test/support/print-secrets.ts'], { env });

/** printSecrets when it may refuse: whether it failed, and what it said. */
const printSecretsOutcome = (env: NodeJS.ProcessEnv) =>
  printSecrets(env).then(
    () => ({ failed: false, stderr: '' }),
    (e: { stderr: string }) => ({ failed: true, stderr: e.stderr }),
  );

/** `npm start` (scripts/serve.mjs) with `env`, which must exit non-zero before it serves anything. */
async function serveRefusal(env: NodeJS.ProcessEnv): Promise<{ stderr: string }> {
  const r = await run(process.execPath, ['scripts/serve.mjs', '-p', '0', '-H', '127.0.0.1'], { env, timeout: 20_000 }).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number | null; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
  expect(r.code).not.toBe(0);
  expect(r.code).not.toBeNull();
  return r;
}
const dir = mkdtempSync(path.join(tmpdir(), 'triage-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('generated secrets (no AUTH_SECRET / AUDIT_CHECKPOINT_KEY set)', () => {
  it('are the same in every app process that starts at once, as scripts/serve.mjs starts them', async () => {
    // Every process loads first, then all read the (missing) secrets at the same moment.
    const home = mkdtempSync(path.join(tmpdir(), 'triage-secrets-home-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TRIAGE_STATE_DIR: dir,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      START_AT: String(Date.now() + 8_000),
    };
    delete env.AUTH_SECRET;
    delete env.AUDIT_CHECKPOINT_KEY_FILE;
    delete env.AUDIT_CHECKPOINT_KEY;
    delete env.CONNECTOR_SECRET_KEY;
    const outputs = await Promise.all(Array.from({ length: 6 }, () => printSecrets(env)));
    const secrets = outputs.map((o) => JSON.parse(o.stdout) as { auth: string; checkpoint: string });
    expect(new Set(secrets.map((s) => s.auth)).size).toBe(1);
    expect(new Set(secrets.map((s) => s.checkpoint)).size).toBe(1);
    expect(secrets[0]!.auth).toMatch(/^[\w-]{43}$/);
    // No private temp files are left behind; the connector key is made on first use, not at boot;
    // the checkpoint key is kept away from the checkpoints.
    expect(readdirSync(dir).sort()).toEqual(['auth-secret']);
    expect(readdirSync(path.join(home, '.config', 'triage'))).toEqual(['audit-checkpoint-key']);
    rmSync(home, { recursive: true, force: true });
  }, 60_000);
});

// With the public compose defaults, anyone could forge a session cookie or re-sign the
// checkpoints. Production refuses to start without real secrets, and says how to make one.
describe('secrets in production', () => {
  const GOOD = 'm6W1bq1cX2s0qJ8oZKkq3T9y7nV5uE4rA1pL0dH2fGc=';
  const production = (vars: Record<string, string | undefined>): NodeJS.ProcessEnv => {
    const e: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', TRIAGE_STATE_DIR: mkdtempSync(path.join(dir, 'prod-')) };
    delete e.AUTH_SECRET;
    delete e.AUDIT_CHECKPOINT_KEY;
    for (const [k, v] of Object.entries(vars)) if (v !== undefined) e[k] = v;
    return e;
  };
  const refusal = async (vars: Record<string, string | undefined>) => {
    const env = production(vars);
    const r = await printSecretsOutcome(env);
    // Nothing generated in its place either.
    expect(readdirSync(env.TRIAGE_STATE_DIR!)).toEqual([]);
    return r;
  };

  it.each([
    ['missing', { AUDIT_CHECKPOINT_KEY: GOOD }, 'AUTH_SECRET'],
    ['short', { AUTH_SECRET: 'abc123', AUDIT_CHECKPOINT_KEY: GOOD }, 'AUTH_SECRET'],
    ["compose's old placeholder", { AUTH_SECRET: 'change-me-change-me-change-me-change-me', AUDIT_CHECKPOINT_KEY: GOOD }, 'AUTH_SECRET'],
    ['a repeated character', { AUTH_SECRET: 'x'.repeat(44), AUDIT_CHECKPOINT_KEY: GOOD }, 'AUTH_SECRET'],
    ['missing checkpoint key', { AUTH_SECRET: GOOD }, 'AUDIT_CHECKPOINT_KEY'],
    ['short checkpoint key', { AUTH_SECRET: GOOD, AUDIT_CHECKPOINT_KEY: '0123456789abcdef' }, 'AUDIT_CHECKPOINT_KEY'],
    ["compose's old checkpoint placeholder", { AUTH_SECRET: GOOD, AUDIT_CHECKPOINT_KEY: 'change-me-too-change-me-too' }, 'AUDIT_CHECKPOINT_KEY'],
  ])(
    'refuses %s, naming the variable and how to generate one',
    async (_what, vars, name) => {
      const r = await refusal(vars);
      expect(r.failed).toBe(true);
      expect(r.stderr).toContain(name);
      expect(r.stderr).toContain('openssl rand -base64 32');
    },
    30_000,
  );

  it('starts with real secrets', async () => {
    const out = await printSecrets(production({ AUTH_SECRET: GOOD, AUDIT_CHECKPOINT_KEY: GOOD.split('').reverse().join('') }));
    expect(JSON.parse(out.stdout)).toEqual({ auth: GOOD, checkpoint: GOOD.split('').reverse().join('') });
  }, 30_000);

  it('npm start refuses to start before it serves anything', async () => {
    const env = production({ AUTH_SECRET: 'change-me-change-me-change-me-change-me' });
    const r = await serveRefusal(env);
    expect(r.stderr).toContain('AUTH_SECRET');
    expect(r.stderr).toContain('openssl rand -base64 32');
  }, 30_000);

  it('docker-compose.yml ships no default secret: it requires them', () => {
    const compose = readFileSync('docker-compose.yml', 'utf8');
    expect(compose).not.toMatch(/change-me/i);
    for (const name of ['AUTH_SECRET', 'AUDIT_CHECKPOINT_KEY']) {
      const uses = [...compose.matchAll(new RegExp(`${name}: (.*)`, 'g'))].map((m) => m[1]!);
      expect(uses.length, name).toBeGreaterThan(0);
      for (const u of uses) expect(u, name).toMatch(new RegExp(`^"?\\$\\{${name}:\\?.*openssl rand -base64 32`));
    }
  });
});

// The services' passwords docker-compose.yml once shipped (triage/triage, a Redis without one,
// RabbitMQ's guest) are public: a production process refuses a URL that carries one. A URL with no
// password (local trust auth, as the demo and the tests use) is fine.
describe('service URLs in production', () => {
  const GOOD = 'm6W1bq1cX2s0qJ8oZKkq3T9y7nV5uE4rA1pL0dH2fGc=';
  const secrets = { AUTH_SECRET: GOOD, AUDIT_CHECKPOINT_KEY: GOOD.split('').reverse().join('') };
  const problems = (vars: Record<string, string>) => productionSecretProblems({ ...secrets, ...vars });
  /** URLs by the variable that holds them, as the [variable, url] cases of it.each. */
  const byVariable = (urls: Record<string, string[]>) => Object.entries(urls).flatMap(([name, list]) => list.map((url) => [name, url] as const));

  const PUBLIC_PASSWORDS: Record<string, string[]> = {
    DATABASE_URL: [
      'postgresql://triage:triage@postgres:5432/triage',
      'postgres://postgres:postgres@db/triage',
      'postgresql://app:password@db:5432/triage',
      'postgresql://triage:change-me-please@db:5432/triage',
    ],
    REDIS_URL: ['redis://:triage@redis:6379', 'redis://default:redis@redis:6379', 'rediss://:changeme@redis:6380'],
    DEMO_RABBITMQ_URL: ['amqp://guest:guest@rabbitmq:5672/', 'amqp://triage:triage@rabbitmq:5672/'],
  };
  const NO_PUBLIC_PASSWORD: Record<string, string[]> = {
    DATABASE_URL: [
      'postgresql://localhost:5432/triage',
      'postgresql://triage@localhost:5432/triage',
      'postgresql://triage:3f9c1e0b7a2d48c6b5e19f07a4c3d2e1@postgres:5432/triage',
    ],
    REDIS_URL: ['redis://localhost:6379', 'redis://:9b1f0e7c3a5d4e2f8c6b0a9d7e5f3c1a@redis:6379'],
    DEMO_RABBITMQ_URL: ['amqp://triage:5e2c9a7f1b3d4068a4c2e9f1b7d3a5c0@rabbitmq:5672/'],
  };

  it.each(byVariable(PUBLIC_PASSWORDS))('refuses %s %s, naming the variable and not the password', (name, url) => {
    const found = problems({ [name]: url });
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(name);
    expect(found[0]).toMatch(/known|public|placeholder/i);
    // The message is logged: it names the variable, never the password in it.
    expect(found[0]).not.toContain(url);
  });

  it.each(byVariable(NO_PUBLIC_PASSWORD))('accepts %s %s', (name, url) => {
    expect(problems({ [name]: url })).toEqual([]);
  });

  it('the app refuses to start with a public database password', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...secrets, NODE_ENV: 'production', TRIAGE_STATE_DIR: mkdtempSync(path.join(dir, 'url-')) };
    env.DATABASE_URL = 'postgresql://triage:triage@127.0.0.1:5432/triage';
    const r = await printSecretsOutcome(env);
    expect(r.failed).toBe(true);
    expect(r.stderr).toContain('DATABASE_URL');
  }, 30_000);

  it('npm start refuses a public Redis password before it serves anything', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...secrets, NODE_ENV: 'production', REDIS_URL: 'redis://:triage@127.0.0.1:6379' };
    const r = await serveRefusal(env);
    expect(r.stderr).toContain('REDIS_URL');
  }, 30_000);
});

describe('the generated checkpoint key (outside production)', () => {
  it('is not kept beside the checkpoint file', async () => {
    const state = mkdtempSync(path.join(dir, 'state-'));
    const home = mkdtempSync(path.join(dir, 'home-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'development',
      TRIAGE_STATE_DIR: state,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
    };
    delete env.AUTH_SECRET;
    delete env.AUDIT_CHECKPOINT_KEY;
    delete env.AUDIT_CHECKPOINT_FILE;
    delete env.AUDIT_CHECKPOINT_KEY_FILE;
    const out = JSON.parse((await printSecrets(env)).stdout) as { checkpoint: string };
    // The checkpoint file's directory (TRIAGE_STATE_DIR) holds no copy of the key.
    for (const f of readdirSync(state)) expect(readFileSync(path.join(state, f), 'utf8'), f).not.toContain(out.checkpoint);
  }, 30_000);
});
