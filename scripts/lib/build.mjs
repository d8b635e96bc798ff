// `next build` when the app's sources changed since the last build (the demo and the ingest bench run
// the built app; the browser tests always build).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { mtime, root } from './dependencies.mjs';

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(p) : mtime(p));
  }
  return newest;
}

/** Builds the app unless `.next` (or NEXT_DIST_DIR) is newer than app/, lib/, generated/ and next.config.ts. */
export function buildIfStale({ log = console.log } = {}) {
  const distDir = process.env.NEXT_DIST_DIR || '.next';
  const sources = Math.max(...['app', 'lib', 'generated'].map((d) => newestSource(path.join(root, d))), mtime(path.join(root, 'next.config.ts')));
  if (sources <= mtime(path.join(root, distDir, 'BUILD_ID'))) return;
  log('→ building the app (next build)');
  const r = spawnSync(process.execPath, ['node_modules/next/dist/bin/next', 'build'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (r.status !== 0) throw new Error(`next build failed (${r.signal ?? `exit code ${r.status}`})`);
}
