import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), 'triage-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('generated secrets (no AUTH_SECRET / AUDIT_CHECKPOINT_KEY set)', () => {
  it('are the same in every app process that starts at once, as scripts/serve.mjs starts them', async () => {
    // Every process loads first, then all read the (missing) secrets at the same moment.
    const env: NodeJS.ProcessEnv = { ...process.env, TRIAGE_STATE_DIR: dir, START_AT: String(Date.now() + 8_000) };
    delete env.AUTH_SECRET;
    delete env.AUDIT_CHECKPOINT_KEY;
    delete env.CONNECTOR_SECRET_KEY;
    const outputs = await Promise.all(
      Array.from({ length: 6 }, () => run(process.execPath, ['--import', 'tsx', 'test/support/print-secrets.ts'], { env })),
    );
    const secrets = outputs.map((o) => JSON.parse(o.stdout) as { auth: string; checkpoint: string });
    expect(new Set(secrets.map((s) => s.auth)).size).toBe(1);
    expect(new Set(secrets.map((s) => s.checkpoint)).size).toBe(1);
    expect(secrets[0]!.auth).toMatch(/^[\w-]{43}$/);
    // No private temp files are left behind; the connector key is made on first use, not at boot.
    expect(readdirSync(dir).sort()).toEqual(['audit-checkpoint-key', 'auth-secret']);
  }, 60_000);
});
