// Grouping accuracy on the project's labelled corpora (test/fixtures/clustering), scored by
// test/support/grouping-accuracy.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterBatch } from '@/lib/clustering/cluster-batch';
import { replayOnline } from '@/lib/clustering/replay-online';
import type { ErrorInput } from '@/lib/clustering/fingerprint';
import { readLabels, readPredictions, scoreGrouping } from '../support/grouping-accuracy';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = resolve(repoRoot, 'test/fixtures/clustering');
const tsx = resolve(repoRoot, 'node_modules/tsx/dist/cli.mjs');
const cli = resolve(repoRoot, 'scripts/cluster-cli.ts');
const work = mkdtempSync(join(tmpdir(), 'clustering-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function runCli(args: string[]): string {
  return execFileSync(process.execPath, [tsx, cli, ...args], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 26 });
}

/** Grouping accuracy of predicted keys (one a line, as the CLI prints them) on a corpus. */
const score = (corpus: string, keys: string): number => scoreGrouping(readLabels(corpus), readPredictions(keys)).groupingAccuracy;

const readErrors = (file: string): ErrorInput[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as ErrorInput);

describe('clustering dead letters of many languages (dlq-polyglot)', () => {
  const corpus = join(fixtures, 'dlq-polyglot.ndjson');

  it('scores at least 0.98 through the CLI', () => {
    expect(score(corpus, runCli([corpus]))).toBeGreaterThanOrEqual(0.98);
  }, 60_000);

  it('scores well at ingest alone (no template merge)', () => {
    expect(score(corpus, runCli(['--ingest', corpus]))).toBeGreaterThanOrEqual(0.85);
  }, 60_000);
});

// The project's corpora of other flavours and the grouping accuracy each must keep.
const FLAVOURS: [string, number][] = [
  ['dlq-polyglot', 0.98],
  ['hdfs-style', 0.98],
  ['openssh-style', 0.98],
  ['bgl-style', 0.98],
  ['apache-proxifier-style', 0.98],
  ['ecosystems-runtimes', 0.98],
  ['ecosystems-infra', 0.98],
];

/** The grouping accuracy on the corpus `name` of the keys `cluster` gives its errors. */
const scoreOf = (name: string, cluster: (errors: ErrorInput[]) => string[]): number => {
  const corpus = join(fixtures, `${name}.ndjson`);
  return score(corpus, `${cluster(readErrors(corpus)).join('\n')}\n`);
};

describe('clustering on corpora of other flavours', () => {
  it.each(FLAVOURS)('%s scores at least %s', (name, threshold) => {
    expect(scoreOf(name, clusterBatch)).toBeGreaterThanOrEqual(threshold);
  });
});

describe('clustering online, one dead letter at a time as the write path does', () => {
  // The write path sees a stream: the second stage runs over a new fingerprint's kin as they are
  // then, and its merges stick. It must not score below what the batch scores.
  it.each(FLAVOURS)(
    '%s scores at least %s',
    (name, threshold) => {
      expect(scoreOf(name, replayOnline)).toBeGreaterThanOrEqual(threshold);
    },
    30_000,
  );
});

describe('clustering dead letters of twelve ecosystems, through the CLI', () => {
  it.each(['ecosystems-runtimes', 'ecosystems-infra'])(
    '%s scores at least 0.98',
    (name) => {
      const corpus = join(fixtures, `${name}.ndjson`);
      expect(score(corpus, runCli([corpus]))).toBeGreaterThanOrEqual(0.98);
    },
    60_000,
  );
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
