// A Postgres cluster of a test's own, in a temp dir on a free port, so a fault test can stop and
// restart it without touching the machine's shared one (other runs use it). The same binaries as
// the machine's (Debian's postgresql package); as root, the cluster runs as the postgres user.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freshTestDatabase } from '../../scripts/lib/database.mjs';

export interface PrivatePostgres {
  /** A fresh, migrated database on the private cluster. */
  url: string;
  port: number;
  /**
   * Stop (fast: sessions are cut, as an operator's restart does), stay down `downMs`, start again.
   * `downAt`: when the stop had returned. The stop blocks this process's event loop, so a request
   * that reached a server in this process while Postgres was stopping is seen only after it.
   */
  restart(downMs?: number): Promise<{ downAt: number }>;
  stop(): void;
  start(): void;
  /** Stop the cluster and remove its directory. */
  destroy(): void;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(path.join(root, v, 'bin', 'initdb'))) return path.join(root, v, 'bin');
  throw new Error('no Postgres server binaries under /usr/lib/postgresql (apt-get install postgresql)');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A temp dir the cluster's OS user owns, and a runner of the server binaries as that user. */
function clusterDir(): { dir: string; data: string; run: (cmd: string, args: string[]) => Buffer } {
  const bin = binDir();
  const dir = mkdtempSync(path.join(tmpdir(), 'triage-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
  const run = (cmd: string, args: string[]) =>
    execFileSync(asRoot ? 'runuser' : cmd, asRoot ? ['-u', 'postgres', '--', path.join(bin, cmd), ...args] : args, { stdio: 'pipe', cwd: dir });
  return { dir, data: path.join(dir, 'data'), run };
}

function control(dir: string, data: string, port: number, run: (cmd: string, args: string[]) => Buffer) {
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const stop = () => void run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  return {
    start: () => void run('pg_ctl', ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', 'start']),
    stop,
    destroy() {
      try {
        stop();
      } catch {
        // already down
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startPrivatePostgres(label = 'fault'): Promise<PrivatePostgres> {
  const { dir, data, run } = clusterDir();
  // initdb's pg_hba (trust) lets 127.0.0.1 connect for replication too: startPrivateReplica copies it.
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const { start, stop, destroy } = control(dir, data, port, run);
  start();
  const url = await freshTestDatabase(`postgresql://postgres@127.0.0.1:${port}/triage`, label);
  return {
    url,
    port,
    start,
    stop,
    async restart(downMs = 3_000) {
      stop();
      const downAt = Date.now();
      await new Promise((r) => setTimeout(r, downMs));
      start();
      return { downAt };
    },
    destroy,
  };
}

/**
 * A streaming replica of a private primary (pg_basebackup -R: a hot standby that follows it), on a
 * port of its own. `url`: the primary's database, on the replica.
 */
export async function startPrivateReplica(primary: PrivatePostgres): Promise<Omit<PrivatePostgres, 'restart'>> {
  const { dir, data, run } = clusterDir();
  run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
  const port = await freePort();
  const { start, stop, destroy } = control(dir, data, port, run);
  start();
  const url = new URL(primary.url);
  url.port = String(port);
  return {
    url: url.toString(),
    port,
    start,
    stop,
    destroy,
  };
}
