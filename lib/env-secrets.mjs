// The rules for Triage's secrets and the passwords in its service URLs, shared by lib/env.ts (every
// process, at boot) and the scripts that start the app before any TypeScript runs (scripts/serve.mjs
// refuses to fork with a bad secret; scripts/demo.mjs keeps the demo's). Plain JS for that reason,
// as db-url.mjs.
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export const GENERATE_HINT = 'Generate one with `openssl rand -base64 32` and give every app and worker process the same value.';

/** Secrets production must be given: the session key (a known one lets anyone forge a cookie) and the checkpoint key. */
export const PRODUCTION_SECRETS = ['AUTH_SECRET', 'AUDIT_CHECKPOINT_KEY'];

// The placeholders docker-compose.yml once shipped, and the shapes such values take.
const PLACEHOLDER = /change-?me|replace-?me|placeholder|example|secret-here|your-/i;

/** Why `value` is no secret (undefined when it will do). */
export function secretProblem(name, value) {
  if (!value) return `${name} is not set. ${GENERATE_HINT}`;
  if (value.length < 32) return `${name} is too short (${value.length} characters, at least 32). ${GENERATE_HINT}`;
  if (PLACEHOLDER.test(value) || new Set(value).size < 10) return `${name} is a known placeholder or guessable. ${GENERATE_HINT}`;
  return undefined;
}

/** The URLs of the services Triage logs in to; production refuses one whose password is public. */
export const SERVICE_URLS = ['DATABASE_URL', 'REDIS_URL', 'DEMO_RABBITMQ_URL'];

// Passwords anyone can look up: docker-compose.yml's old ones (triage/triage, the demo's), the images'
// and brokers' defaults (RabbitMQ's guest), and the usual first guesses.
const PUBLIC_PASSWORDS = new Set([
  'triage',
  'triage-demo',
  'guest',
  'postgres',
  'redis',
  'rabbitmq',
  'password',
  'passw0rd',
  'admin',
  'root',
  'secret',
  'pass',
  'test',
  'default',
  '123456',
]);

/**
 * Why the password in `value` (a service URL) is no secret (undefined when it will do, or when the
 * URL has none: local trust auth, as the demo and the tests use). Never repeats the URL: it is logged.
 */
export function urlPasswordProblem(name, value) {
  let url;
  try {
    url = new URL(value ?? '');
  } catch {
    return undefined; // not a URL at all: the schema in lib/env.ts says so
  }
  if (!url.password) return undefined;
  const decode = (v) => {
    try {
      return decodeURIComponent(v);
    } catch {
      return v;
    }
  };
  const password = decode(url.password);
  const known = PUBLIC_PASSWORDS.has(password.toLowerCase()) || PLACEHOLDER.test(password) || password === decode(url.username);
  if (!known) return undefined;
  return `${name} carries a known public password (a default or placeholder). Set one of your own, e.g. \`openssl rand -hex 24\` (hex needs no escaping in a URL).`;
}

/** In production, what is wrong with the configured secrets and service passwords; empty when all will do. */
export function productionSecretProblems(vars) {
  return [...PRODUCTION_SECRETS.map((name) => secretProblem(name, vars[name])), ...SERVICE_URLS.map((name) => urlPasswordProblem(name, vars[name]))].filter(
    Boolean,
  );
}

/**
 * Outside production, where a generated checkpoint key is kept: AUDIT_CHECKPOINT_KEY_FILE, else the
 * user's config directory. Not TRIAGE_STATE_DIR, where the checkpoints are: whoever can rewrite the
 * file must not find the key to re-sign it beside it.
 */
export function checkpointKeyFile(vars) {
  if (vars.AUDIT_CHECKPOINT_KEY_FILE) return path.resolve(vars.AUDIT_CHECKPOINT_KEY_FILE);
  const config = vars.XDG_CONFIG_HOME || path.join(vars.HOME || homedir(), '.config');
  return path.resolve(config, 'triage', 'audit-checkpoint-key');
}

/** A secret kept in `file` (mode 0600), generated on first use. */
export function fileSecret(file) {
  const p = path.resolve(file);
  if (existsSync(p)) return readFileSync(p, 'utf8').trim();
  mkdirSync(path.dirname(p), { recursive: true, mode: 0o700 });
  // Written whole under a private name, then linked into place: the app's processes (scripts/serve.mjs)
  // start together, and whichever links first wins; the others read its secret, never a half-written one.
  const secret = randomBytes(32).toString('base64url');
  const tmp = `${p}.${process.pid}.tmp`;
  writeFileSync(tmp, `${secret}\n`, { mode: 0o600 });
  try {
    linkSync(tmp, p);
    return secret;
  } catch (e) {
    if (e.code !== 'EEXIST') throw e;
    return readFileSync(p, 'utf8').trim();
  } finally {
    unlinkSync(tmp);
  }
}
