// The app as `npm start` serves it (scripts/serve.mjs): one process per core on one port. A signed-in
// user is served by any of them, and when one dies another takes its place.
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { expect, test } from '@playwright/test';
import { as } from './helpers';

const PORT = process.env.E2E_PORT ?? '3100';

/** The pids of the app's processes: the supervisor and the servers it forked. */
function appProcesses(): { primary: number; servers: number[] } {
  const lines = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' }).split('\n');
  const serve = lines
    .map((l) => l.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/))
    // Node processes only: a shell that started the command names it too.
    .filter((m): m is RegExpMatchArray => m !== null && /^(\S*\/)?node\s.*scripts\/serve\.mjs/.test(m[3]!) && m[3]!.includes(`-p ${PORT}`))
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]) }));
  const pids = new Set(serve.map((p) => p.pid));
  const primary = serve.find((p) => !pids.has(p.ppid));
  if (!primary) throw new Error(`no app process for port ${PORT}`);
  return { primary: primary.pid, servers: serve.filter((p) => p.ppid === primary.pid).map((p) => p.pid) };
}

test.describe('the app behind one port', () => {
  test.use(as('support@triage.local'));

  test('runs one process per core, serves a signed-in user from any of them, and replaces one that dies', async ({ page }) => {
    const processes = Number(process.env.WEB_CONCURRENCY ?? availableParallelism());
    test.skip(processes < 2, 'one app process (one core or WEB_CONCURRENCY=1) runs without a supervisor');
    const before = appProcesses();
    expect(before.servers).toHaveLength(processes);
    // Page loads land on whichever process the port hands them to: the session holds in every one.
    const inboxSixTimes = async () => {
      for (let i = 0; i < 6; i++) {
        await page.goto('/inbox');
        await expect(page.getByRole('heading', { level: 1 })).toHaveText('Inbox');
      }
    };
    await inboxSixTimes();

    const victim = before.servers[0]!;
    process.kill(victim, 'SIGKILL');
    await expect.poll(() => appProcesses().servers.filter((pid) => pid !== victim).length, { timeout: 30_000 }).toBe(before.servers.length);
    const after = appProcesses();
    expect(after.primary).toBe(before.primary);
    expect(after.servers).not.toContain(victim);
    await inboxSixTimes();
  });
});
