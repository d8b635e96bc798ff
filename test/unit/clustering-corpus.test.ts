// Grouping accuracy on labelled corpora, computed by the shared scorer itself
// (shared/tools/grouping-accuracy.mjs, beside the repo in CI as in development).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterBatch } from '@/lib/clustering/cluster-batch';
import type { ErrorInput } from '@/lib/clustering/fingerprint';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const scorer = resolve(repoRoot, '../shared/tools/grouping-accuracy.mjs');
const sharedCorpus = resolve(repoRoot, '../shared/data/clustering/dlq-errors.ndjson');
const fixtures = resolve(repoRoot, 'test/fixtures/clustering');
const tsx = resolve(repoRoot, 'node_modules/tsx/dist/cli.mjs');
const cli = resolve(repoRoot, 'scripts/cluster-cli.ts');
const work = mkdtempSync(join(tmpdir(), 'clustering-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function runCli(args: string[]): string {
  return execFileSync(process.execPath, [tsx, cli, ...args], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 26 });
}

/** Runs the scorer on a corpus and predicted keys; returns grouping accuracy. */
function score(corpus: string, keys: string): number {
  const predictions = join(work, `${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(predictions, keys);
  const out = execFileSync(process.execPath, [scorer, corpus, predictions], { encoding: 'utf8' });
  const match = /grouping accuracy ([\d.]+)/.exec(out);
  if (!match) throw new Error(`unexpected scorer output: ${out}`);
  return Number(match[1]);
}

const readErrors = (file: string): ErrorInput[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as ErrorInput);

describe('clustering on the shared corpus', () => {
  it('scores at least 0.98 through the CLI', () => {
    expect(score(sharedCorpus, runCli([sharedCorpus]))).toBeGreaterThanOrEqual(0.98);
  }, 60_000);

  it('scores well at ingest alone (no template merge)', () => {
    expect(score(sharedCorpus, runCli(['--ingest', sharedCorpus]))).toBeGreaterThanOrEqual(0.9);
  }, 60_000);
});

describe('clustering on corpora of other flavours', () => {
  it.each([
    ['dlq-polyglot', 0.98],
    ['hdfs-style', 0.98],
    ['openssh-style', 0.98],
    ['bgl-style', 0.98],
    ['apache-proxifier-style', 0.95],
  ])('%s scores at least %s', (name, threshold) => {
    const corpus = join(fixtures, `${name}.ndjson`);
    const keys = clusterBatch(readErrors(corpus));
    expect(score(corpus, `${keys.join('\n')}\n`)).toBeGreaterThanOrEqual(threshold);
  });
});

describe('cluster CLI', () => {
  it('skips blank lines, keeps the order, and reads messages without type or stack', () => {
    const file = join(work, 'blank-lines.ndjson');
    writeFileSync(file, '{"message":"a 1"}\n\n   \n{"message":"b"}\r\n{"message":"a 2"}\n');
    const lines = runCli([file]).trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(lines[2]);
    expect(lines[0]).not.toBe(lines[1]);
  }, 30_000);

  it('fails with the line number on invalid JSON', () => {
    const file = join(work, 'broken.ndjson');
    writeFileSync(file, '{"message":"ok"}\n{oops\n');
    expect(() => runCli([file])).toThrow(/line 2: invalid JSON/);
  }, 30_000);
});
