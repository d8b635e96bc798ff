// `npm run bench`: runs every test/bench/*.bench.ts (or those named on the command line) and prints
// each figure with its baseline measured in the same run and the ratio. Targets are reported,
// never asserted: this machine is noisy.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  /** The comparison measured in the same run, e.g. plain BullMQ or raw COPY. */
  baseline?: { name: string; value: number };
  /** Human-readable target, e.g. "≥ 0.5× baseline" or "≤ 50 ms". */
  target?: string;
  /** Whether the target was met in this run. */
  met?: boolean;
}

export type Bench = () => Promise<BenchResult[]>;

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
// Run only when named (`npm run bench storm`): the storm takes up to 30 minutes on its own.
// page-plans seeds 5,000,000 rows by default.
const ON_DEMAND = new Set(['storm.bench.ts', 'page-plans.bench.ts']);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => (only.length === 0 ? !ON_DEMAND.has(f) : only.some((o) => f.includes(o))))
  .sort();

const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(2) : n.toPrecision(3));
let missed = 0;
const started = performance.now();
const minutes = (since: number) => `${((performance.now() - since) / 60_000).toFixed(1)} min`;
for (const f of files) {
  console.log(`\n## ${f}`);
  const fileStarted = performance.now();
  const mod = (await import(pathToFileURL(path.join(dir, f)).href)) as { run: Bench };
  try {
    for (const r of await mod.run()) {
      const ratio = r.baseline ? `  ratio ${(r.value / r.baseline.value).toFixed(2)}× vs ${r.baseline.name} (${fmt(r.baseline.value)} ${r.unit})` : '';
      const target = r.target ? `  target ${r.target}: ${r.met === undefined ? '?' : r.met ? 'met' : 'MISSED'}` : '';
      if (r.met === false) missed++;
      console.log(`${r.name}: ${fmt(r.value)} ${r.unit}${ratio}${target}`);
    }
  } catch (e) {
    missed++;
    console.error(`${f} failed:`, e);
  }
  console.log(`(${f}: ${minutes(fileStarted)})`);
}
// The default bench is meant to fit 15 minutes on the 2-core machine; the time says whether it did.
console.log(`\n${missed === 0 ? 'all targets met' : `${missed} target(s) missed or failed`} in ${minutes(started)}`);
process.exit(0);
