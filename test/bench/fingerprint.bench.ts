// Ingest fingerprint cost: µs per dead letter over the labelled corpora (target ≤ 15 µs, on the
// process's CPU time so that a busy machine's other processes do not count), the cost of
// the batch clustering (fingerprint + template merge) per dead letter, and grouping accuracy per
// corpus. The corpora are the project's (test/fixtures/clustering); the corpus the clustering was
// first tuned on sits beside the repository in development and is scored too when it is there.
// Loghub-2k (the public log-parsing benchmark, 16 labelled data sets) is scored when LOGHUB_DIR names
// a folder of its .ndjson files, as the write path would cluster it: online, one message
// at a time (replayOnline), beside the published Drain and Brain figures. Nothing of it is needed
// by the product or its tests.
//   npx tsx test/bench/fingerprint.bench.ts
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clusterBatch } from '@/lib/clustering/cluster-batch';
import { replayOnline } from '@/lib/clustering/replay-online';
import { fingerprint, type ErrorInput } from '@/lib/clustering/fingerprint';
import { readLabels, scoreGrouping } from '../support/grouping-accuracy';
import type { BenchResult } from './run';

const FINGERPRINT_TARGET_MICROS = 15;
const GA_TARGET = 0.98;
/** Loghub-2k: the average to reach and the floor for every data set, online. */
const LOGHUB_AVERAGE_TARGET = 0.95;
const LOGHUB_FLOOR = 0.85;
/** Published grouping accuracy averaged over the 16 data sets (the data set's README). */
const DRAIN_AVERAGE = 0.865; // with hand-written regexes per data set
const BRAIN_AVERAGE = 0.983; // offline: sees the whole file first

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = join(repoRoot, 'test/fixtures/clustering');
// Extra labelled corpora a developer scores by hand (e.g. a tuning corpus outside the repo): a comma-separated list.
const extra = (process.env.TRIAGE_EXTRA_CORPORA ?? '')
  .split(',')
  .filter(Boolean)
  .map((f) => resolve(f));
const corpora = [
  ...readdirSync(fixtures)
    .filter((f) => f.endsWith('.ndjson'))
    .sort()
    .map((f) => join(fixtures, f)),
  ...extra.filter((f) => existsSync(f)),
];

// Kept outside the repository: a clone has no copy, so the folder is named, never assumed.
const loghubDir = process.env.LOGHUB_DIR ? resolve(process.env.LOGHUB_DIR) : null;
const loghub =
  loghubDir && existsSync(loghubDir)
    ? readdirSync(loghubDir)
        .filter((f) => f.endsWith('.ndjson'))
        .sort()
        .map((f) => join(loghubDir, f))
    : [];

function loadCorpus(file: string): ErrorInput[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as ErrorInput);
}

/** CPU µs per item (user + system of this process): the cores are shared with whatever else runs. */
function microsPer(count: number, run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / count;
}

/** Grouping accuracy per Loghub-2k data set, online through the write path's clustering, and the average. */
function loghubResults(): BenchResult[] {
  if (loghub.length === 0) {
    console.log(`Loghub-2k not scored: set LOGHUB_DIR to a folder of its .ndjson files${loghubDir ? ` (${loghubDir} has none)` : ''}`);
    return [];
  }
  const scores = loghub.map((file) => ({
    name: basename(file, '.ndjson'),
    ga: scoreGrouping(readLabels(file), replayOnline(loadCorpus(file))).groupingAccuracy,
  }));
  const average = scores.reduce((sum, s) => sum + s.ga, 0) / scores.length;
  return [
    ...scores.map(({ name, ga }) => ({
      name: `clustering.loghub-2k GA ${name} (online)`,
      value: Number(ga.toFixed(4)),
      unit: 'GA',
      target: `≥ ${LOGHUB_FLOOR}`,
      met: ga >= LOGHUB_FLOOR,
    })),
    {
      name: `clustering.loghub-2k GA average of ${scores.length} (online)`,
      value: Number(average.toFixed(4)),
      unit: 'GA',
      baseline: { name: 'Drain, published', value: DRAIN_AVERAGE },
      target: `≥ ${LOGHUB_AVERAGE_TARGET} (Brain, published and offline: ${BRAIN_AVERAGE})`,
      met: average >= LOGHUB_AVERAGE_TARGET,
    },
  ];
}

export function run(): BenchResult[] {
  const errors = corpora.flatMap(loadCorpus);
  let sink = 0;
  // Warm the JIT before measuring.
  for (let i = 0; i < 3; i++) for (const e of errors) sink += fingerprint(e).key.length;
  const rounds = 20;
  const fingerprintMicros = microsPer(errors.length * rounds, () => {
    for (let i = 0; i < rounds; i++) for (const e of errors) sink += fingerprint(e).key.length;
  });
  const batchMicros = microsPer(errors.length * 5, () => {
    for (let i = 0; i < 5; i++) sink += clusterBatch(errors).length;
  });
  if (sink === 0) throw new Error('unreachable: keeps the measured work alive');
  return [
    {
      name: 'clustering.fingerprint (CPU time)',
      value: Number(fingerprintMicros.toFixed(2)),
      unit: 'µs/dead letter',
      target: `≤ ${FINGERPRINT_TARGET_MICROS} µs`,
      met: fingerprintMicros <= FINGERPRINT_TARGET_MICROS,
    },
    { name: 'clustering.batch (fingerprint + merge, CPU time)', value: Number(batchMicros.toFixed(2)), unit: 'µs/dead letter' },
    ...corpora.map((file) => {
      const ga = scoreGrouping(readLabels(file), clusterBatch(loadCorpus(file))).groupingAccuracy;
      return {
        name: `clustering.grouping accuracy ${basename(file, '.ndjson')}`,
        value: Number(ga.toFixed(4)),
        unit: 'GA',
        target: `≥ ${GA_TARGET}`,
        met: ga >= GA_TARGET,
      };
    }),
    ...corpora.map((file) => {
      const ga = scoreGrouping(readLabels(file), replayOnline(loadCorpus(file))).groupingAccuracy;
      return { name: `clustering.grouping accuracy ${basename(file, '.ndjson')} (online)`, value: Number(ga.toFixed(4)), unit: 'GA' };
    }),
    ...loghubResults(),
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const r of run())
    console.log(
      `${r.name}: ${r.value} ${r.unit}${r.baseline ? ` (${r.baseline.name}: ${r.baseline.value})` : ''}${r.target ? `  target ${r.target}: ${r.met ? 'met' : 'MISSED'}` : ''}`,
    );
}
