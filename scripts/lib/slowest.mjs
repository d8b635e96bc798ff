// The slowest test files of a run, from the JSON reports of vitest and Playwright: where the minutes
// of `npm test` go, printed after each runner so that a slower file shows in every run.
import { existsSync, readFileSync } from 'node:fs';

export const REPORT_DIR = '.triage/test-reports';

/** Seconds per file: vitest's report gives each file's start and end; Playwright's, each test's duration. */
export function fileTimes(kind, report) {
  const times = new Map();
  if (kind === 'vitest') {
    for (const f of report.testResults ?? []) times.set(f.name.replace(`${process.cwd()}/`, ''), (f.endTime - f.startTime) / 1000);
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

function readReport(file) {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The failed tests of a run, as "file › name: first line of the error". The summary prints them
 * last, so that a log cut to its tail (as CI's is) still says what failed.
 */
export function failedTests(kind, file) {
  const report = readReport(file);
  if (!report) return [];
  const out = [];
  const firstLine = (m) =>
    String(m ?? '')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: a terminal colour code is what it strips
      .replace(/\x1b\[[0-9;]*m/g, '')
      .split('\n')
      .find((l) => l.trim()) ?? '';
  if (kind === 'vitest') {
    for (const f of report.testResults ?? []) {
      const name = f.name.replace(`${process.cwd()}/`, '');
      const failed = (f.assertionResults ?? []).filter((a) => a.status === 'failed');
      for (const a of failed) out.push(`${name} › ${a.fullName}: ${firstLine(a.failureMessages?.[0])}`.slice(0, 300));
      // A file that failed to load or whose hooks threw has no failed test of its own.
      if (failed.length === 0 && f.status === 'failed') out.push(`${name}: ${firstLine(f.message)}`.slice(0, 300));
    }
    return out;
  }
  const walk = (suite, file, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status !== 'unexpected' && t.status !== 'flaky') continue;
        const err = t.results?.find((r) => r.error)?.error?.message;
        out.push(`${file} › ${[...titles, spec.title].join(' › ')}${t.status === 'flaky' ? ' (flaky, passed on retry)' : ''}: ${firstLine(err)}`.slice(0, 300));
      }
    }
    for (const s of suite.suites ?? []) walk(s, file, [...titles, s.title]);
  };
  for (const s of report.suites ?? []) walk(s, `test/e2e/${s.file ?? s.title}`, []);
  for (const e of report.errors ?? []) out.push(`playwright: ${firstLine(e.message)}`.slice(0, 300));
  return out;
}

export function printSlowest(kind, file, n = 20) {
  const report = readReport(file);
  if (!report) return;
  const rows = [...fileTimes(kind, report)].sort((a, b) => b[1] - a[1]).slice(0, n);
  if (rows.length === 0) return;
  console.log(`\n── ${n} slowest ${kind} files ──`);
  for (const [name, s] of rows) console.log(`${s.toFixed(1).padStart(7)} s  ${name}`);
}
