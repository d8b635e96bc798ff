// `npm run lint`: the copy-paste check (jscpd, settings in .jscpd.json). It counts pairs of places
// that share a run of 6+ lines of the same shape: the same text, or the same code with other names,
// strings and numbers (jscpd's ignoreIdentifiers and ignoreLiterals), import lines left out. Two files
// that share several runs are one pair, as a reader sees them; .ts, .tsx, .js and .mjs files are
// compared with each other (crossFormats js-ts). Fails when there are more pairs than the ratchet
// `maxPairs`, or more runs than `maxRuns` (a block pasted into two files that already share one is a
// new run, not a new pair), both kept in that file, and prints each pair, so a change that pastes a
// block fails here; a change that removes some is told to lower the ratchets.
// Usage: node scripts/lint-duplicates.mjs [--root DIR]   (DIR defaults to the repo; its .jscpd.json is read)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const rootArg = process.argv.indexOf('--root');
const root = path.resolve(rootArg > 0 ? process.argv[rootArg + 1] : repo);
const configPath = path.join(root, '.jscpd.json');
const { maxPairs, maxRuns, path: paths = ['.'], ...settings } = JSON.parse(readFileSync(configPath, 'utf8'));
if (!Number.isInteger(maxPairs) || !Number.isInteger(maxRuns)) {
  console.error(`✗ ${configPath}: "maxPairs" and "maxRuns" (the ratchets) must be integers`);
  process.exit(2);
}
// jscpd knows no ratchet: it gets the settings alone, and only the paths that exist.
const present = paths.filter((p) => existsSync(path.join(root, p)));

// The repo's pinned jscpd, also for a --root elsewhere.
const bin = createRequire(path.join(repo, 'package.json')).resolve('jscpd/run-jscpd.js');
const out = mkdtempSync(path.join(os.tmpdir(), 'triage-jscpd-'));
try {
  const config = path.join(out, 'jscpd.json');
  writeFileSync(config, JSON.stringify(settings));
  const r = spawnSync(process.execPath, [bin, '--config', config, '--reporters', 'json', '--output', out, '--no-colors', '--absolute', ...present], {
    cwd: root,
    encoding: 'utf8',
  });
  const reportPath = path.join(out, 'jscpd-report.json');
  if (r.status !== 0 || !existsSync(reportPath)) {
    console.error(`✗ jscpd failed (${r.signal ?? `exit code ${r.status}`})\n${r.stdout}${r.stderr}`);
    process.exit(2);
  }
  const { duplicates } = JSON.parse(readFileSync(reportPath, 'utf8'));
  // One pair per two files (or one file with itself): its longest shared run, and how many more.
  // A list of literals matches itself one line down: a run that overlaps its own copy is data, not a
  // copy. So is a run of nothing but table entries (`'key': 'value',`, `'item',`, with the table's
  // declaration and comments): two tables of literals share their shape whatever they hold.
  const LITERAL = /'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\$]|\\.)*`|-?\b\d[\d_.]*\b/g;
  const ENTRY = /^\s*(?:(?:L|[\w$]+)\s*:\s*)?L\s*,?\s*$|^\s*[[\]{}(),;]*\s*$|^\s*\/\/|^\s*(?:export\s+)?(?:const|let)\s+[\w$]+(?:\s*:\s*[^=]+)?=\s*[[{]\s*$/;
  const isTable = (fragment = '') => fragment.split('\n').every((line) => ENTRY.test(line.replace(LITERAL, 'L')));
  const pairs = new Map();
  let runs = 0;
  for (const d of duplicates) {
    for (const f of [d.firstFile, d.secondFile]) f.name = path.relative(root, f.name);
    const [a, b] = [d.firstFile, d.secondFile].sort((x, y) => x.name.localeCompare(y.name) || x.start - y.start);
    if ((a.name === b.name && b.start <= a.end) || isTable(d.fragment)) continue;
    runs++;
    const key = `${a.name}\n${b.name}`;
    const seen = pairs.get(key);
    if (!seen) pairs.set(key, { a, b, lines: d.lines, kind: d.kind, runs: 1 });
    else {
      seen.runs++;
      if (d.lines > seen.lines) Object.assign(seen, { a, b, lines: d.lines, kind: d.kind });
    }
  }
  const at = (f) => `${f.name}:${f.start}-${f.end}`;
  const lines = [...pairs.values()]
    .sort((x, y) => y.lines - x.lines || at(x.a).localeCompare(at(y.a)))
    .map((p) => `${p.lines} lines: ${at(p.a)}  ~  ${at(p.b)}${p.kind === 'exact' ? '' : ' (shape)'}${p.runs > 1 ? ` (+${p.runs - 1} more runs)` : ''}`);
  for (const line of lines) console.log(line);
  const count = pairs.size;
  const min = settings.minLines ?? 5;
  const what = `${count} pairs of places (${runs} runs) sharing ${min}+ lines of the same shape`;
  if (count > maxPairs || runs > maxRuns) {
    console.error(
      `\n✗ ${what}, above the ratchet of ${maxPairs} pairs and ${maxRuns} runs (.jscpd.json "maxPairs", "maxRuns"): share the new code instead of copying it`,
    );
    process.exit(1);
  }
  console.log(`\n✓ ${what} (ratchet ${maxPairs} pairs, ${maxRuns} runs)`);
  if (count < maxPairs) console.log(`  below the ratchet: lower "maxPairs" in .jscpd.json to ${count}`);
  if (runs < maxRuns) console.log(`  below the ratchet: lower "maxRuns" in .jscpd.json to ${runs}`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
