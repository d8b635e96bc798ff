#!/usr/bin/env node
// Drop-in for Prisma's native `schema-engine` binary, which the Prisma 7 CLI downloads on first use
// and which is unreachable offline. scripts/prisma.mjs points PRISMA_SCHEMA_ENGINE_BINARY here when
// the native binary is missing. It speaks the same interface the CLI uses:
//   schema-engine --version
//   schema-engine --datasource '{"url":…}' cli can-connect-to-database|create-database
//   schema-engine [--datamodels <schema file>]… --datasource '{"url":…,"shadowDatabaseUrl":…}'
//     → JSON-RPC 2.0, one message per line on stdin/stdout, logs on stderr
// and runs the same engine compiled to Wasm (@prisma/schema-engine-wasm) on @prisma/adapter-pg.
// PostgreSQL only.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PgMigrateAdapterFactory } from './adapter.mjs';

const { values: args, positionals } = parseArgs({
  strict: false, // the CLI may pass flags we don't use (--enabled-preview-features, --extension-types)
  allowPositionals: true,
  options: {
    version: { type: 'boolean', short: 'V' },
    datasource: { type: 'string' },
    datamodels: { type: 'string', multiple: true },
  },
});
const datasource = JSON.parse(args.datasource ?? '{}');
// A URL without a user means the OS user for libpq (psql, …); pg would send none at all when $USER
// is unset (containers), so make it explicit.
process.env.PGUSER ||= process.env.USER || userInfo().username;

if (args.version) {
  const wasm = await loadWasmEngine();
  console.log(`schema-engine-wasm ${wasm.version()}`);
} else if (positionals[0] === 'cli') {
  process.exitCode = await cliCommand(positionals[1], datasource.url);
} else {
  await serveJsonRpc();
}

async function loadWasmEngine() {
  // The package's entry point imports the .wasm as an ES module, which Node doesn't support without
  // a flag; instantiate it by hand from its wasm-bindgen glue (as the Prisma CLI itself does).
  const glue = await import('@prisma/schema-engine-wasm/schema_engine_bg');
  const dir = new URL('.', import.meta.resolve('@prisma/schema-engine-wasm'));
  const bytes = await readFile(new URL('schema_engine_bg.wasm', dir));
  const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': glue });
  // The glue reports Rust panic messages here before throwing `RuntimeError: unreachable`.
  globalThis.PRISMA_WASM_PANIC_REGISTRY = {
    message: '',
    set_message(m) {
      this.message = m;
    },
  };
  glue.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  return glue;
}

async function serveJsonRpc() {
  const { SchemaEngine } = await loadWasmEngine();
  // The Wasm engine expects adapter calls to return Result objects instead of throwing.
  const { bindMigrationAwareSqlAdapterFactory } = await import('@prisma/driver-adapter-utils');
  const factory = new PgMigrateAdapterFactory(datasource);
  const adapter = bindMigrationAwareSqlAdapterFactory(factory);
  const datamodels = args.datamodels?.map((path) => [path, readFileSync(path, 'utf8')]);
  // The engine logs the same JSON lines the native one prints on stderr (the CLI reads them).
  const log = (line) => process.stderr.write(`${String(line).trimEnd()}\n`);
  const engine = SchemaEngine.new({ datamodels }, log, adapter);
  engine.catch(() => {}); // a failed start is reported as the error of each request

  const reply = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  let queue = Promise.resolve(); // one request at a time, like the native engine
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => {
    queue = queue.then(async () => {
      let id = null;
      try {
        const request = JSON.parse(line);
        if (request.method === undefined) return; // a reply to a request of ours; we send none
        id = request.id;
        // The RPC method names are the Wasm engine's method names, except this one.
        const method = request.method === 'getDatabaseVersion' ? 'version' : request.method;
        if (method === 'free' || typeof SchemaEngine.prototype[method] !== 'function') {
          const message = `Method not found: ${request.method} (not available in the Wasm schema engine)`;
          return reply({ id, error: { code: -32601, message } });
        }
        const result = await call(await engine, method, request.params);
        // `diff` returns its output; the native engine instead asks the CLI to print it (which also
        // makes `migrate diff --output` work, as the CLI captures what it prints).
        if (method === 'diff' && result?.stdout) {
          reply({ id: `print-${id}`, method: 'print', params: { content: result.stdout.replace(/\n$/, '') } });
          result.stdout = null;
        }
        reply({ id, result: result ?? null });
      } catch (e) {
        reply({ id, error: rpcError(e, adapter.errorRegistry) });
      } finally {
        await factory.dropShadowDbs();
      }
    });
  });
  // The CLI ends stdin (and then kills us) when it's done.
  lines.on('close', () => queue.then(() => process.exit(0)));
}

// evaluateDataLoss and createMigration (`migrate dev`) need the migration history replayed into a
// shadow database. In the Wasm engine they only get that after a call that opted into a shadow
// database (devDiagnostic, diagnoseMigrationHistory) and lose it once applyMigrations has applied
// something (`migrate dev` with pending migrations); then they fail with this message. Make such a
// call and retry.
const NO_SHADOW_DB = 'PostgreSQL shadow DB must be provided through an external factory';
async function call(engine, method, params) {
  try {
    return await engine[method](params);
  } catch (e) {
    if (!params?.migrationsList || !String(e?.message).includes(NO_SHADOW_DB)) throw e;
    const { migrationsList, filters } = params;
    await engine.diagnoseMigrationHistory({ migrationsList, filters, optInToShadowDatabase: true });
    return await engine[method](params);
  }
}

// Shape errors like the native engine's JSON-RPC errors, which the CLI unpacks from `data`.
function rpcError(e, errorRegistry) {
  const panic = e instanceof WebAssembly.RuntimeError; // a Rust panic; its message was saved for us
  let message = panic ? globalThis.PRISMA_WASM_PANIC_REGISTRY.message || String(e) : String(e?.message ?? e);
  // Errors thrown in JS (by our adapter code rather than by Postgres) come back as "External error
  // id#N", with the error itself kept in the adapter's registry.
  message = message.replace(/External error id#(\d+)/g, (ref, n) => errorRegistry.consumeError(Number(n))?.error?.message ?? ref);
  const data = { is_panic: panic, message, meta: e?.meta ?? null };
  if (panic) data.error = { message };
  if (/^P\d{4}$/.test(e?.code)) data.error_code = e.code; // user-facing errors (P3xxx, …)
  return { code: 4466, message: 'An error happened. Check the data field for details.', data };
}

// `cli …` subcommands, run by the CLI before `migrate dev|deploy|status` / `db push` (to create
// the database if it's missing). Plain pg, no engine. Errors go to stderr as the native engine's
// log lines: the CLI skips the first line and looks for an ERROR line with an error_code.
async function cliCommand(command, url) {
  const client = (database) => {
    const target = new URL(url);
    if (database) target.pathname = `/${database}`;
    return new pg.Client({ connectionString: target.href });
  };
  const database = decodeURIComponent(new URL(url).pathname.slice(1));
  try {
    if (command === 'can-connect-to-database') {
      const c = client();
      await c.connect();
      await c.end();
    } else if (command === 'create-database') {
      const c = client('postgres');
      await c.connect();
      try {
        await c.query(`CREATE DATABASE "${database.replaceAll('"', '""')}"`);
      } finally {
        await c.end();
      }
    } else {
      throw new Error(`Unsupported command: cli ${command}`);
    }
    return 0;
  } catch (e) {
    // P1003 (database does not exist) is what makes the CLI run create-database.
    const code = { '3D000': 'P1003', '28P01': 'P1000', 28000: 'P1000', '42P04': 'P1009' }[e.code] ?? (/^P\d{4}$/.test(e.code) ? e.code : 'P1001');
    const line = (level, fields) => JSON.stringify({ timestamp: new Date().toISOString(), level, fields, target: 'schema_engine::logger' });
    process.stderr.write(`${line('INFO', { message: `cli ${command}` })}\n${line('ERROR', { message: e.message, error_code: code })}\n`);
    return 1;
  }
}
