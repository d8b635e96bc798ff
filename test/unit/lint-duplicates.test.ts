// The copy-paste lint step (scripts/lint-duplicates.mjs, `npm run lint`): it passes at the ratchet
// and fails, naming both places, once a change adds a repeated block, the same text or the same code
// with its names and values changed. Run on a temp tree with its own .jscpd.json, as the repo's
// settings would be.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const script = path.resolve('scripts/lint-duplicates.mjs');
const block = `
export function summarize(rows: { status: string; count: number }[]) {
  const totals = new Map<string, number>();
  for (const row of rows) {
    const previous = totals.get(row.status) ?? 0;
    totals.set(row.status, previous + row.count);
  }
  const ordered = [...totals.entries()].sort((a, b) => b[1] - a[1]);
  return ordered.map(([status, count]) => ({ status, count, share: count / rows.length }));
}
`;

// The same code with other names and values: a copy all the same.
const renamed = block
  .replace(/summarize/g, 'tally')
  .replace(/totals/g, 'byKind')
  .replace(/status/g, 'kind')
  .replace(/previous/g, 'before')
  .replace(/ordered/g, 'sorted')
  .replace(/share/g, 'part')
  .replace('?? 0', '?? 1');

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function tree(files: Record<string, string>, maxPairs: number, maxRuns = maxPairs): string {
  dir = mkdtempSync(path.join(os.tmpdir(), 'lint-duplicates-'));
  // "absent" is in the list as a folder may be before it exists: the script skips it.
  const settings = {
    minLines: 6,
    minTokens: 50,
    mode: 'weak',
    ignoreIdentifiers: true,
    ignoreLiterals: true,
    crossFormats: 'js-ts',
    path: ['src', 'absent'],
    maxPairs,
    maxRuns,
  };
  writeFileSync(path.join(dir, '.jscpd.json'), JSON.stringify(settings));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const lint = (root: string) => spawnSync(process.execPath, [script, '--root', root], { encoding: 'utf8' });

// Each case runs jscpd in a child process: seconds on a loaded machine.
describe('lint-duplicates', { timeout: 60_000 }, () => {
  it('passes a tree at its ratchet', () => {
    const r = lint(tree({ 'src/a.ts': block, 'src/b.ts': 'export const b = 1;\n' }, 0));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('0 pairs of places (0 runs) sharing 6+ lines of the same shape (ratchet 0 pairs, 0 runs)');
  });

  it('fails once a change copies a block, and prints both places', () => {
    const r = lint(tree({ 'src/a.ts': block, 'src/b.ts': `// copied\n${block}` }, 0));
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/\d+ lines: src\/a\.ts:\d+-\d+ {2}~ {2}src\/b\.ts:\d+-\d+/);
    expect(r.stderr).toContain('1 pairs of places (1 runs) sharing 6+ lines of the same shape, above the ratchet of 0 pairs');
  });

  it('fails on a copy whose names and values were changed, and says it is alike in shape', () => {
    const r = lint(tree({ 'src/a.ts': block, 'src/b.ts': renamed }, 0));
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/\d+ lines: src\/a\.ts:\d+-\d+ {2}~ {2}src\/b\.ts:\d+-\d+ \(shape\)/);
  });

  it('counts two files that share several runs as one pair', () => {
    const twice = `${block}\nexport const gap = [1, 2, 3].map(String).join('-');\n${block.replace('summarize', 'again')}`;
    const r = lint(tree({ 'src/a.ts': twice, 'src/b.ts': `${block}\n${block.replace('summarize', 'again')}` }, 10, 10));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/src\/a\.ts:\d+-\d+ {2}~ {2}src\/b\.ts:\d+-\d+/);
    expect(r.stdout.match(/src\/a\.ts:\d+-\d+ {2}~ {2}src\/b\.ts/g)).toHaveLength(1);
  });

  it('fails on a block pasted into two files that already share one: a new run, not a new pair', () => {
    const pasted = `\nexport const wrap = (xs: number[]) => {\n  const out: number[] = [];\n  for (const x of xs) {\n    if (x > 10) out.push(x * 2);\n    else out.push(x + 1);\n  }\n  out.sort((a, b) => a - b);\n  return out.filter((x) => x % 3 !== 0);\n};\n`;
    const before = lint(tree({ 'src/a.ts': block, 'src/b.ts': block }, 1, 1));
    expect(before.status).toBe(0);
    const r = lint(tree({ 'src/a.ts': block + pasted, 'src/b.ts': `${block}\nexport const gap = 1;\n${pasted}` }, 1, 1));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/1 pairs of places \(2 runs\)/);
  });

  it('compares TypeScript with TSX and JavaScript modules', () => {
    const js = block.replace(': { status: string; count: number }[]', '').replace('<string, number>', '');
    const r = lint(tree({ 'src/a.ts': block, 'src/b.mjs': js }, 0));
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/src\/a\.ts:\d+-\d+ {2}~ {2}src\/b\.mjs/);
    const tsx = lint(tree({ 'src/a.ts': block, 'src/b.tsx': block }, 0));
    expect(tsx.status).toBe(1);
  });

  it('counts no pair for two tables of literals, whatever they hold', () => {
    const table = (name: string, n: number) =>
      `// ${name}\nexport const ${name}: Record<string, string> = {\n${Array.from({ length: 12 }, (_, i) => `  'key ${n + i}': 'value ${i}',`).join('\n')}\n};\n`;
    const r = lint(tree({ 'src/a.ts': table('ROUTES', 0), 'src/b.ts': table('LABELS', 100) }, 0));
    expect(r.status).toBe(0);
  });

  it('tells to lower a ratchet that is above the count', () => {
    const r = lint(tree({ 'src/a.ts': block }, 3));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('lower "maxPairs" in .jscpd.json to 0');
    expect(r.stdout).toContain('lower "maxRuns" in .jscpd.json to 0');
  });
});
