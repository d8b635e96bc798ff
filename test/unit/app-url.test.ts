// Links in webhooks, alarms and ownership notes point at the app where it is served: without
// APP_URL, the origin follows PORT (the demo on another port must not link to port 3000).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function appUrl(extra: Record<string, string>): string {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'development', TRIAGE_STATE_DIR: '.triage/test' };
  delete env.APP_URL;
  delete env.PORT;
  Object.assign(env, extra);
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', "import('./lib/env.ts').then(({ env }) => console.log(env().APP_URL))"], {
    env,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

// Each case starts a Node process with tsx, which takes seconds on a loaded machine.
const SPAWN_TIMEOUT = 30_000;

describe('APP_URL', () => {
  it(
    'defaults to the port the app serves on',
    () => {
      expect(appUrl({ PORT: '3100' })).toBe('http://localhost:3100');
    },
    SPAWN_TIMEOUT,
  );
  it(
    'is 3000 without PORT, and APP_URL when set wins',
    () => {
      expect(appUrl({})).toBe('http://localhost:3000');
      expect(appUrl({ PORT: '3100', APP_URL: 'https://triage.example.com' })).toBe('https://triage.example.com');
    },
    SPAWN_TIMEOUT,
  );
});
