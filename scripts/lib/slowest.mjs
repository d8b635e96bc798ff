// The slowest test files of a run, from the JSON reports of vitest and Playwright: where the minutes
// of `npm test` go, printed after each runner so that a slower file shows in every run.
import { existsSync, readFileSync } from 'node:fs';

export const REPORT_DIR = '.triage/test-reports';

/** Seconds per file: vitest's report gives each file's start and end; Playwright's, each test's duration. */
export function fileTimes(kind, report) {
  const times = new Map();
  if (kind === 'vitest') {
    for (const f of report.testResults ?? []) times.set(f.name.replace(process.cwd() + '/', ''), (f.endTime - f.startTime) / 1000);
    return times;
  }
  const walk = (suite, file) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) for (const r of t.results ?? []) times.set(file, (times.get(file) ?? 0) + r.duration / 1000);
    }
    for (const s of suite.suites ?? []) walk(s, file);
  };
  for (const s of report.suites ?? []) walk(s, `test/e2e/${s.file ?? s.title}`);
  return times;
}

export function printSlowest(kind, file, n = 20) {
  if (!existsSync(file)) return;
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return;
  }
  const rows = [...fileTimes(kind, report)].sort((a, b) => b[1] - a[1]).slice(0, n);
  if (rows.length === 0) return;
  console.log(`\n── ${n} slowest ${kind} files ──`);
  for (const [name, s] of rows) console.log(`${s.toFixed(1).padStart(7)} s  ${name}`);
}
