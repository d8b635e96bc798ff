// The worker runner (lib/worker-runner/run-worker-process.ts) in real child processes: "ready" once
// started; SIGTERM (and a second signal while stopping) runs stop once and exits 0; a stop that
// hangs is cut short after graceMs with its own exit code; a start or a stop that throws, and an
// invalid environment, say so by their exit codes.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { EXIT } from '@/lib/worker-runner/run-worker-process';

interface Child {
  ready: Promise<void>;
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
  stdout(): string;
  stderr(): string;
}

function spawnChild(env: Record<string, string>): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/workers/runner-child.ts'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      out += `${line}\n`;
      if (line.includes('"msg":"ready"')) resolve();
    });
    void exited.then(() => reject(new Error(`exited before ready: ${err}`)));
  });
  ready.catch(() => {});
  return { ready, exited, kill: (s) => child.kill(s), stdout: () => out, stderr: () => err };
}

const stopCalls = (out: string) => out.split('\n').filter((l) => l === 'STOP CALLED').length;

/** A child started with `env` and sent SIGTERM once ready, with the time of the signal. */
async function terminated(env: Record<string, string>): Promise<{ c: Child; signalled: number }> {
  const c = spawnChild(env);
  await c.ready;
  const signalled = Date.now();
  c.kill('SIGTERM');
  return { c, signalled };
}

describe('runWorkerProcess', { timeout: 60_000 }, () => {
  it('logs ready, and on SIGTERM then SIGINT runs stop once and exits 0', async () => {
    const { c } = await terminated({});
    await new Promise((r) => setTimeout(r, 100));
    c.kill('SIGINT');
    expect(await c.exited).toBe(EXIT.stopped);
    expect(stopCalls(c.stdout())).toBe(1);
    expect(c.stdout()).toContain('"msg":"test worker stopping"');
  });

  it('exits with graceExceeded when stop hangs past graceMs', async () => {
    const { c, signalled } = await terminated({ RUNNER_STOP: 'hang', RUNNER_GRACE_MS: '500' });
    expect(await c.exited).toBe(EXIT.graceExceeded);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(500);
    expect(stopCalls(c.stdout())).toBe(1);
    expect(c.stdout()).toContain('still stopping after the grace period');
  });

  it('exits with stopFailed when stop throws, and with failed when start throws', async () => {
    const { c } = await terminated({ RUNNER_STOP: 'throw' });
    expect(await c.exited).toBe(EXIT.stopFailed);

    const s = spawnChild({ RUNNER_START: 'throw' });
    expect(await s.exited).toBe(EXIT.failed);
    expect(s.stdout()).toContain('test worker failed to start');
    await expect(s.ready).rejects.toThrow();
  });

  it('refuses an invalid environment at boot with the message and exit code 78', async () => {
    const c = spawnChild({ CONSUMER_CONCURRENCY: 'many' });
    expect(await c.exited).toBe(EXIT.invalidEnv);
    expect(c.stderr()).toContain('Invalid environment');
    expect(c.stderr()).toContain('CONSUMER_CONCURRENCY');
  });
});
