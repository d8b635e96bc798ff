// /api/health answers a stranger ok or not ok, without the drivers' error text (which names
// hosts, ports and users). Postgres and Redis are pointed at a closed port.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('GET /api/health without credentials', () => {
  it('says not ok (503) and nothing more when Postgres and Redis are down', async () => {
    const env = { ...process.env, DATABASE_URL: 'postgresql://triage-secret-user@127.0.0.1:1/triage', REDIS_URL: 'redis://127.0.0.1:1', LOG_LEVEL: 'silent' };
    const out = JSON.parse((await run(process.execPath, ['--import', 'tsx', 'test/support/health-probe.ts'], { env, timeout: 30_000 })).stdout) as {
      status: number;
      body: string;
    };
    expect(out.status).toBe(503);
    expect(JSON.parse(out.body)).toEqual({ ok: false });
    expect(out.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|triage-secret-user|unreachable/);
  }, 40_000);
});
