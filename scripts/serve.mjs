// `npm start`: the built app (after `next build`) on one port, served by WEB_CONCURRENCY processes
// (default: one per core). `next start` is one Node process, so one core; the ingest API is CPU work
// in Node (JSON, base64, SHA-256, fingerprints, COPY encoding), and a second process on a second core
// ingests a quarter to a half more (test/bench/ingest.bench.ts). The processes share nothing in
// memory: sessions are signed cookies, sign-in limits and queues live in Redis, the rest in Postgres.
//
//   node scripts/serve.mjs [-p 3000] [-H 127.0.0.1]     (PORT and WEB_CONCURRENCY also work)
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { productionSecretProblems } from '../lib/env-secrets.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: { port: { type: 'string', short: 'p' }, hostname: { type: 'string', short: 'H' } },
  strict: true,
});
const port = Number(args.port ?? process.env.PORT ?? 3000);
// Not $HOSTNAME: shells and containers set it to the machine's name, which is not what to listen on.
const hostname = args.hostname;
const concurrency = process.env.WEB_CONCURRENCY ? Number(process.env.WEB_CONCURRENCY) : availableParallelism();
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`the port must be an integer from 0 to 65535, got ${args.port ?? process.env.PORT}`);
if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
  fail(`WEB_CONCURRENCY must be an integer from 1 to 64, got ${process.env.WEB_CONCURRENCY}`);

// What the app and its links (lib/env.ts: APP_URL defaults to this port) take as the port.
process.env.PORT = String(port);

function fail(message) {
  console.error(`✗ serve: ${message}`);
  process.exit(2);
}

/** One Next server on the shared port; SIGTERM closes it after the requests in flight. */
async function serve() {
  process.env.NODE_ENV = 'production';
  const { default: next } = await import('next');
  const app = next({ dev: false, dir: root, hostname: hostname ?? 'localhost', port });
  const handle = app.getRequestHandler();
  await app.prepare();
  const server = createServer((req, res) => handle(req, res));
  // As `next start`: keep idle keep-alive connections a little longer than common proxies do.
  server.keepAliveTimeout = 65_000;
  server.listen(port, hostname, () => {
    if (!cluster.isWorker || cluster.worker.id === 1) {
      console.log(`▲ Triage on http://${hostname ?? 'localhost'}:${port} (${concurrency} process${concurrency === 1 ? '' : 'es'})`);
    }
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 10_000).unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** Forks the processes and replaces one that dies; gives up when they keep dying right after start. */
function supervise() {
  let stopping = false;
  const recentDeaths = [];
  const fork = () => cluster.fork();
  cluster.setupPrimary({ exec: path.join(root, 'scripts/serve.mjs'), args: process.argv.slice(2) });
  for (let i = 0; i < concurrency; i++) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    const now = Date.now();
    recentDeaths.push(now);
    while (recentDeaths.length && recentDeaths[0] < now - 30_000) recentDeaths.shift();
    if (recentDeaths.length > concurrency * 2) fail(`app processes keep exiting (last: ${signal ?? `code ${code}`}); giving up`);
    console.error(`✗ app process ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another`);
    fork();
  });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    setTimeout(() => process.exit(0), 12_000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

// The app serves in production, which needs real secrets: refuse before any process serves a request
// (lib/env.ts checks again in each process).
const secretProblems = productionSecretProblems(process.env);
if (secretProblems.length) fail(`refusing to start:\n  ${secretProblems.join('\n  ')}`);

if (concurrency > 1 && cluster.isPrimary) supervise();
else await serve();
