// The worker processes beside the app in a browser run, started at once: Playwright starts its
// webServer entries one after another, and six processes each booting through tsx on two cores
// took half a minute in a row. Says "ready" on stdout once every worker has said it (what
// playwright.config.ts waits for); their stderr goes through, each line under its worker's name.
// Playwright stops the run with SIGTERM to the process group, which every worker gets itself.
//
//   node scripts/e2e-workers.mjs consumer.ts redrive.ts …   (files under workers/)
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('✗ e2e-workers: name the files under workers/ to start');
  process.exit(2);
}

const waiting = new Set(files);
let running = files.length;
let stopping = false;
// Only until every worker is up: one that dies after that leaves the others running, as it would
// as a webServer entry of its own.
let failed = false;
const children = [];

for (const file of files) {
  const name = file.replace(/\.ts$/, '');
  const child = spawn(process.execPath, ['node_modules/tsx/dist/cli.mjs', `workers/${file}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!waiting.has(file) || !line.includes('"msg":"ready"')) return;
    waiting.delete(file);
    if (waiting.size === 0) console.log(JSON.stringify({ msg: 'ready', workers: files.length }));
  });
  createInterface({ input: child.stderr }).on('line', (line) => console.error(`[${name}] ${line}`));
  child.on('exit', (code, signal) => {
    running--;
    if (!stopping) console.error(`[${name}] exited (${signal ?? `code ${code}`})`);
    if (waiting.has(file) && !failed) {
      // A worker that never came up fails the start: the others are stopped with it.
      failed = true;
      for (const other of children) other.kill('SIGTERM');
    }
    if (running === 0) process.exit(failed ? 1 : 0);
  });
}

// The workers get the group's signal themselves; this process waits for them to finish.
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => (stopping = true));
