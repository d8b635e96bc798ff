import { readdirSync } from 'node:fs';
import { defineConfig } from '@playwright/test';
import { findChromium } from './scripts/lib/chromium.mjs';

// Run through `node scripts/e2e.mjs`, which seeds a fresh database and picks the port.
const PORT = Number(process.env.E2E_PORT ?? 3100);
const baseURL = `http://127.0.0.1:${PORT}`;

// CHROMIUM_PATH, Debian's chromium or Playwright's download (scripts/lib/chromium.mjs); flags keep
// it off the network.
const launchOptions = {
  executablePath: findChromium()?.path,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
};

// Every worker process runs beside the app, as in `npm run demo`; each logs "ready" once started.
// The demo's own producers (demo.ts, demo-rabbitmq.ts) are not: the tests make their own data.
const workers = readdirSync('workers').filter((f) => f.endsWith('.ts') && !/^demo(-.*)?\.ts$/.test(f));

// The whole suite runs on two workers (TRIAGE_E2E_STAGED, set by scripts/e2e.mjs when it is given
// no files). The specs share one database and one set of workers, so they run in stages: the
// accessibility pages first, on data nothing else has touched yet; then the demo's story (its shared
// orders and payments sources, the handler version, the payments outage switch, and what reads their
// state: the SLA board's policy, a payments alarm), one file after another, beside the specs that make
// and read data of their own; last, alone, the specs that count
// or change what is global (sign-in limits and failures, an app process killed). The last stage is
// the setup's teardown, so it runs whatever failed before it (a project after a failed dependency
// would not run); a failed accessibility test leaves the second stage unrun. A run of chosen files
// takes one worker and no stages: a stage runs whole when a later one depends on it.
const STAGED = process.env.TRIAGE_E2E_STAGED === '1';
const after = (...stages: string[]) => (STAGED ? ['setup', ...stages] : ['setup']);
const DEMO_STORY = /\/(clusters|edit-redrive|incident-story|redrive|redrive-rules|sla)\.spec\.ts$/;
const GLOBAL = /\/(auth-hardening|security|serve)\.spec\.ts$/;
const A11Y = /\/accessibility\.spec\.ts$/;

export default defineConfig({
  testDir: 'test/e2e',
  fullyParallel: false,
  workers: STAGED ? 2 : 1,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  // TRIAGE_E2E_JSON: where `npm test` reads each file's time from.
  reporter: process.env.TRIAGE_E2E_JSON ? [['list'], ['json', { outputFile: process.env.TRIAGE_E2E_JSON }]] : [['list']],
  use: { baseURL, launchOptions, trace: 'off' },
  projects: [
    { name: 'setup', testMatch: /(global|accessibility)\.setup\.ts/, ...(STAGED ? { teardown: 'global' } : {}) },
    { name: 'accessibility', dependencies: ['setup'], testMatch: A11Y },
    { name: 'demo-story', dependencies: after('accessibility'), testMatch: DEMO_STORY, workers: 1 },
    { name: 'own-data', dependencies: after('accessibility'), testMatch: /\.spec\.ts$/, testIgnore: [A11Y, DEMO_STORY, GLOBAL] },
    { name: 'global', ...(STAGED ? {} : { dependencies: ['setup'] }), testMatch: GLOBAL, workers: 1 },
  ],
  webServer: [
    {
      name: 'app',
      // As `npm start`: one app process per core behind the port (scripts/serve.mjs).
      command: `node scripts/serve.mjs -p ${PORT} -H 127.0.0.1`,
      url: `${baseURL}/api/health`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      // Every worker at once (scripts/e2e-workers.mjs): Playwright starts its entries one by one.
      name: 'workers',
      command: `node scripts/e2e-workers.mjs ${workers.join(' ')}`,
      wait: { stdout: /"msg":"ready"/ },
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
      gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 },
    },
  ],
});
