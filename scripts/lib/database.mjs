// Database lifecycle for the demo and the test runs: create, migrate, clone from a template, drop.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { withDefaultUser } from '../../lib/db-url.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

export function databaseName(url) {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}

function adminUrl(url) {
  const u = new URL(withDefaultUser(url));
  u.pathname = '/postgres';
  return u.toString();
}

async function withAdmin(url, fn) {
  const client = new pg.Client({ connectionString: adminUrl(url), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const ident = (name) => `"${name.replaceAll('"', '""')}"`;

/** Create the database if it does not exist; returns true when it was created. */
export async function ensureDatabase(url, { template } = {}) {
  const name = databaseName(url);
  return withAdmin(url, async (c) => {
    const { rowCount } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    await c.query(`CREATE DATABASE ${ident(name)}${template ? ` TEMPLATE ${ident(template)}` : ''}`);
    return true;
  });
}

export async function dropDatabase(url) {
  const name = databaseName(url);
  await withAdmin(url, (c) => c.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`));
}

export function prisma(args, env = {}) {
  const r = spawnSync(process.execPath, ['scripts/prisma.mjs', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  if (r.status !== 0) {
    throw new Error(`prisma ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

export function migrate(url) {
  prisma(['migrate', 'deploy'], { DATABASE_URL: url });
}

/** A fresh, migrated database for one test run, cloned from a migrated template (fast). */
export async function freshTestDatabase(baseUrl, label) {
  const u = new URL(withDefaultUser(baseUrl));
  // Named by the migrations' content: an edited or added migration gets a new template, never a
  // stale one.
  const template = `triage_test_tpl_${migrationsHash()}`;
  u.pathname = `/${template}`;
  const templateUrl = u.toString();
  u.pathname = `/triage_test_${label}_${process.pid}_${Date.now().toString(36)}`;
  const url = u.toString();
  // Runs may start side by side: one at a time migrates the template and clones it (a template
  // cannot be cloned while another session is connected to it).
  await withAdmin(templateUrl, async (c) => {
    await c.query('SELECT pg_advisory_lock(72010002)');
    try {
      const { rows } = await c.query(`SELECT datname FROM pg_database WHERE datname LIKE 'triage_test_tpl_%' AND datname <> $1`, [template]);
      for (const r of rows) await c.query(`DROP DATABASE IF EXISTS ${ident(r.datname)} WITH (FORCE)`);
      await ensureDatabase(templateUrl);
      migrate(templateUrl); // a no-op when current; picks up new migrations
      await c.query(`CREATE DATABASE ${ident(databaseName(url))} TEMPLATE ${ident(template)}`);
    } finally {
      await c.query('SELECT pg_advisory_unlock(72010002)');
    }
  });
  return url;
}

function migrationsHash() {
  const dir = path.join(root, 'prisma/migrations');
  const h = createHash('sha256');
  for (const name of readdirSync(dir).sort()) {
    if (name.endsWith('.toml')) continue;
    h.update(name).update(readFileSync(path.join(dir, name, 'migration.sql')));
  }
  return h.digest('hex').slice(0, 12);
}
