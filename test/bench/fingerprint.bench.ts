// Ingest fingerprint cost: µs per dead letter over the shared labelled corpus (budget 10 µs), and
// the cost of the batch clustering (fingerprint + template merge) per dead letter.
//   npx tsx test/bench/fingerprint.bench.ts
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clusterBatch } from '@/lib/clustering/cluster-batch';
import { fingerprint, type ErrorInput } from '@/lib/clustering/fingerprint';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CORPUS = resolve(repoRoot, '../shared/data/clustering/dlq-errors.ndjson');

function loadCorpus(): ErrorInput[] {
  return readFileSync(CORPUS, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as ErrorInput);
}

function microsPer(count: number, run: () => void): number {
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start) / 1000 / count;
}

export function run(): BenchResult[] {
  const errors = loadCorpus();
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
    { name: 'clustering.fingerprint', value: Number(fingerprintMicros.toFixed(2)), unit: 'µs/dead letter' },
    { name: 'clustering.batch (fingerprint + merge)', value: Number(batchMicros.toFixed(2)), unit: 'µs/dead letter' },
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const r of run()) console.log(`${r.name}: ${r.value} ${r.unit}`);
}
