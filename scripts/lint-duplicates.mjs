// `npm run lint`: the copy-paste check (jscpd, settings in .jscpd.json). Fails when it counts more
// repeated blocks than the ratchet `maxClones` kept in that file, and prints each one, so a change
// that pastes a block fails here; a change that removes some is told to lower the ratchet.
// Usage: node scripts/lint-duplicates.mjs [--root DIR]   (DIR defaults to the repo; its .jscpd.json is read)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const rootArg = process.argv.indexOf('--root');
const root = path.resolve(rootArg > 0 ? process.argv[rootArg + 1] : repo);
const configPath = path.join(root, '.jscpd.json');
const config = JSON.parse(readFileSync(configPath, 'utf8'));
if (!Number.isInteger(config.maxClones)) {
  console.error(`✗ ${configPath}: "maxClones" (the ratchet) must be an integer`);
  process.exit(2);
}
// jscpd stops on a path that does not exist; a folder of the list may not be there yet.
const paths = (config.path ?? ['.']).filter((p) => existsSync(path.join(root, p)));

// The repo's pinned jscpd, also for a --root elsewhere (its package exports no bin path to resolve).
const bin = path.join(repo, 'node_modules/jscpd/bin/jscpd');
const out = mkdtempSync(path.join(os.tmpdir(), 'triage-jscpd-'));
try {
  const r = spawnSync(process.execPath, [bin, '--config', configPath, '--reporters', 'json', '--output', out, '--silent', ...paths], {
    cwd: root,
    encoding: 'utf8',
  });
  const reportPath = path.join(out, 'jscpd-report.json');
  if (r.status !== 0 || !existsSync(reportPath)) {
    console.error(`✗ jscpd failed (${r.signal ?? `exit code ${r.status}`})\n${r.stdout}${r.stderr}`);
    process.exit(2);
  }
  const { duplicates } = JSON.parse(readFileSync(reportPath, 'utf8'));
  const at = (f) => `${f.name}:${f.start}-${f.end}`;
  const lines = duplicates.map((d) => `${d.lines} lines: ${at(d.firstFile)}  ~  ${at(d.secondFile)}`).sort();
  for (const line of lines) console.log(line);
  const count = duplicates.length;
  const max = config.maxClones;
  if (count > max) {
    console.error(
      `\n✗ ${count} repeated blocks of ${config.minLines ?? 5}+ lines, above the ratchet of ${max} (.jscpd.json "maxClones"): share the new one instead of copying it`,
    );
    process.exit(1);
  }
  console.log(`\n✓ ${count} repeated blocks of ${config.minLines ?? 5}+ lines (ratchet ${max})`);
  if (count < max) console.log(`  below the ratchet: lower "maxClones" in .jscpd.json to ${count}`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
