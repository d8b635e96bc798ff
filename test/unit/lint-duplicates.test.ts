// The copy-paste lint step (scripts/lint-duplicates.mjs, `npm run lint`): it passes at the ratchet
// and fails, naming both places, once a change adds a repeated block. Run on a temp tree with its own
// .jscpd.json, as the repo's settings would be.
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

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function tree(files: Record<string, string>, maxClones: number): string {
  dir = mkdtempSync(path.join(os.tmpdir(), 'lint-duplicates-'));
  // "absent" is in the list as components/ is before it exists: the script skips it.
  writeFileSync(path.join(dir, '.jscpd.json'), JSON.stringify({ minLines: 6, path: ['src', 'absent'], reporters: ['json'], maxClones }));
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
    expect(r.stdout).toContain('0 repeated blocks of 6+ lines (ratchet 0)');
  });

  it('fails once a change copies a block, and prints both places', () => {
    const r = lint(tree({ 'src/a.ts': block, 'src/b.ts': `// copied\n${block}` }, 0));
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/\d+ lines: src\/a\.ts:\d+-\d+ {2}~ {2}src\/b\.ts:\d+-\d+/);
    expect(r.stderr).toContain('1 repeated blocks of 6+ lines, above the ratchet of 0');
  });

  it('tells to lower a ratchet that is above the count', () => {
    const r = lint(tree({ 'src/a.ts': block }, 3));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('lower "maxClones" in .jscpd.json to 0');
  });
});
