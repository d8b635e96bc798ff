// The demo's seed (prisma/seed.ts) makes an admin whose password is printed in the README: run by a
// production deployment on an empty database it would open the instance to anyone who has read it.
// Under NODE_ENV=production it refuses unless told this is the demo (TRIAGE_DEMO=1).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { db } from '@/lib/db';
import { resetDatabase } from '../support/db';

const seedInProduction = (extra: Record<string, string> = {}) => {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    // Real secrets, so that nothing but the seed's own rule can be what refuses.
    AUTH_SECRET: randomBytes(32).toString('base64'),
    AUDIT_CHECKPOINT_KEY: randomBytes(32).toString('base64'),
    ...extra,
  };
  delete env.TRIAGE_DEMO;
  return spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'prisma/seed.ts'], { encoding: 'utf8', env, timeout: 120_000 });
};

describe('prisma/seed.ts under NODE_ENV=production', () => {
  beforeEach(resetDatabase);

  it('refuses on an empty database: non-zero exit, says how the demo opts in, creates nothing', async () => {
    const r = seedInProduction();
    expect(r.status, r.stdout + r.stderr).not.toBe(0);
    expect(r.status).not.toBeNull();
    expect(r.stderr).toContain('TRIAGE_DEMO=1');
    expect(r.stderr).toContain('admin bootstrap');
    expect(await db().user.count()).toBe(0);
    expect(await db().team.count()).toBe(0);
    expect(await db().source.count()).toBe(0);
    expect(await db().auditEvent.count()).toBe(0);
  }, 130_000);

  it('refuses for any value of TRIAGE_DEMO but 1', async () => {
    const r = seedInProduction({ TRIAGE_DEMO: 'true' });
    expect(r.status, r.stdout + r.stderr).not.toBe(0);
    expect(await db().user.count()).toBe(0);
  }, 130_000);
});
