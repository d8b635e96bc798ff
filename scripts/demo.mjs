// `npm run demo`: Triage with demo data on a fresh clone, in one command. Installs dependencies,
// creates and migrates the database, seeds, builds, then runs the app and every worker until
// Ctrl-C. Needs Postgres and Redis reachable (local services or `docker compose up -d postgres redis`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installIfStale } from './lib/dependencies.mjs';
import { WORKER_NODE_FLAGS } from './lib/worker-flags.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (cmd, args, env = {}) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) {
    console.error(`\n✗ ${cmd} ${args.join(' ')} failed`);
    process.exit(r.status ?? 1);
  }
};

// 1. Dependencies (only Node built-ins are imported above this line).
installIfStale();

// 2. Secrets: the app serves in production mode, which refuses to start without real ones. The
// demo's are generated once and kept: the session key under TRIAGE_STATE_DIR, the checkpoint key
// away from the checkpoints (lib/env-secrets.mjs), so sessions and checkpoints survive a restart.
const { checkpointKeyFile, fileSecret } = await import('../lib/env-secrets.mjs');
process.env.AUTH_SECRET ||= fileSecret(path.join(process.env.TRIAGE_STATE_DIR || '.triage', 'auth-secret'));
process.env.AUDIT_CHECKPOINT_KEY ||= fileSecret(checkpointKeyFile(process.env));

// 3. Database: create, migrate, generate the client, seed.
const { ensureDatabase, migrate, prisma } = await import('./lib/database.mjs');
const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://localhost:5432/triage';
try {
  if (await ensureDatabase(databaseUrl)) console.log('→ created the database');
} catch (e) {
  console.error(`✗ cannot reach Postgres at ${databaseUrl.replace(/\/\/[^@]*@/, '//')}: ${e.message}`);
  console.error('  Start it (or `docker compose up -d postgres redis`) and set DATABASE_URL if it is elsewhere.');
  process.exit(1);
}
console.log('→ migrating');
migrate(databaseUrl);
prisma(['generate']);
// TRIAGE_DEMO: the seed refuses to make the demo's users (public password) in production otherwise.
run(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'prisma/seed.ts'], { TRIAGE_DEMO: '1' });

// 4. Build the app when its sources changed since the last build.
const { buildIfStale } = await import('./lib/build.mjs');
try {
  buildIfStale();
} catch (e) {
  console.error(`\n✗ ${e.message}`);
  process.exit(1);
}

// 5. Run the app and the workers; stop them all together.
const port = process.env.PORT ?? '3000';
const children = [];
const start = (name, args) => {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], env: process.env });
  child.on('exit', (code, signal) => {
    if (!stopping) console.error(`✗ ${name} exited (${signal ?? code})`);
  });
  children.push(child);
};
let stopping = false;
const stop = () => {
  stopping = true;
  for (const c of children) c.kill('SIGTERM');
  setTimeout(() => process.exit(0), 5000).unref();
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

start('app', ['scripts/serve.mjs', '-p', port]);
const workersDir = path.join(root, 'workers');
for (const file of existsSync(workersDir)
  ? readdirSync(workersDir)
      .filter((f) => f.endsWith('.ts'))
      .sort()
  : []) {
  start(`worker ${file}`, [...(WORKER_NODE_FLAGS[file] ?? []), 'node_modules/tsx/dist/cli.mjs', path.join('workers', file)]);
}

console.log(`
Triage is starting at http://localhost:${port}

Demo users (password: triage-demo):
  support@triage.local          support engineer, team commerce  → inbox
  lead@triage.local             team lead, team commerce         → SLA board
  auditor@triage.local          auditor, every team              → audit trail
  admin@triage.local            admin                            → admin
  finance-support@triage.local  support engineer, team finance
  finance-lead@triage.local     team lead, team finance

Ctrl-C stops the app and the workers.
`);
