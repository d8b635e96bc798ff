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

export default defineConfig({
  testDir: 'test/e2e',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  // TRIAGE_E2E_JSON: where `npm test` reads each file's time from.
  reporter: process.env.TRIAGE_E2E_JSON ? [['list'], ['json', { outputFile: process.env.TRIAGE_E2E_JSON }]] : [['list']],
  use: { baseURL, launchOptions, trace: 'off' },
  projects: [
    { name: 'setup', testMatch: /global\.setup\.ts/ },
    { name: 'chromium', dependencies: ['setup'], testIgnore: /global\.setup\.ts/ },
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
    ...workers.map((file) => ({
      name: file.replace(/\.ts$/, ''),
      command: `node node_modules/tsx/dist/cli.mjs workers/${file}`,
      wait: { stdout: /"msg":"ready"/ },
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore' as const,
      stderr: 'pipe' as const,
      gracefulShutdown: { signal: 'SIGTERM' as const, timeout: 5_000 },
    })),
  ],
});
