// The triage CLI (scripts/triage-cli.ts) as an operator runs it: its own process, from the repo root,
// the test's environment plus what a test adds (a secret read through `env:NAME`, say).
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export function triageCli(args: string[], env: Record<string, string | undefined> = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/triage-cli.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
}

/** `triage source create --team commerce --kind <kind> <args>`: the connector suites' CLI contract. */
export function cliCreateSource(kind: string, args: string[], env: Record<string, string | undefined> = {}): SpawnSyncReturns<string> {
  return triageCli(['source', 'create', '--team', 'commerce', '--kind', kind, ...args], env);
}
