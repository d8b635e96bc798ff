// A worker process as the integration tests start one (workers/connectors.ts, workers/redrive.ts, a
// test's own consumer): node itself with tsx as a loader, not tsx's CLI, which would put a second
// process between a signal and the worker; on this run's database, queue prefix and state
// directory; `ready` once it logs so. What it writes is kept, for a failure's message and for the
// tests that read its log. Every child still running can be SIGKILLed at once: a failed test must
// not leave one behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { env } from '@/lib/env';

const root = fileURLToPath(new URL('../..', import.meta.url));
const children = new Set<ChildProcess>();

export interface WorkerChild {
  process: ChildProcess;
  /** Resolves when the child logged "ready"; rejects when it exits before. */
  ready: Promise<void>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  kill(signal?: NodeJS.Signals): void;
}

/** `script` (a path from the repo root) as a child process, with `extraEnv` over the run's environment. */
export function spawnWorkerChild(script: string, extraEnv: Record<string, string> = {}): WorkerChild {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: env().DATABASE_URL,
      QUEUE_PREFIX: env().QUEUE_PREFIX,
      TRIAGE_STATE_DIR: env().TRIAGE_STATE_DIR,
      LOG_LEVEL: 'info',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output += `${line}\n`;
      if (line.includes('"msg":"ready"')) resolve();
    });
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    void exited.then(() => reject(new Error(`${script} exited before ready: ${output.slice(-4000)}`)));
  });
  ready.catch(() => undefined);
  return { process: child, ready, exited, output: () => output, kill: (signal = 'SIGKILL') => child.kill(signal) };
}

/** SIGKILL every child still running and wait for their exits. */
export async function killWorkerChildren(): Promise<void> {
  const exits = [...children].map((c) => new Promise((r) => c.once('exit', r)));
  for (const c of children) c.kill('SIGKILL');
  await Promise.all(exits);
}
