#!/usr/bin/env node
// `node scripts/prisma.mjs <prisma args…>`: the Prisma CLI, made to work offline.
// - The CLI needs a native schema-engine binary for `migrate`/`db` and, when it's missing, tries to
//   download it on *every* command (even `generate`), which fails without internet (and npm install
//   scripts are disabled here, so it's never fetched at install time). If the binary for this
//   platform isn't installed and PRISMA_SCHEMA_ENGINE_BINARY isn't set, point that variable at
//   scripts/schema-engine/engine.mjs, which runs the same engine as Wasm. A present native binary,
//   or a user-set variable, is left alone.
// - No update check or telemetry calls.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const prismaDir = dirname(require.resolve('prisma/package.json'));
const cli = join(prismaDir, 'build/index.js');

process.env.CHECKPOINT_DISABLE = '1';
process.env.PRISMA_HIDE_UPDATE_MESSAGE = '1';

const userChoseEngine = process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.env.PRISMA_MIGRATION_ENGINE_BINARY;
if (!userChoseEngine && !(await nativeEngineInstalled())) {
  process.env.PRISMA_SCHEMA_ENGINE_BINARY = fileURLToPath(new URL('schema-engine/engine.mjs', import.meta.url));
  // The CLI spawns it directly (`#!/usr/bin/env node`): make that the node running us.
  process.env.PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;
}

// Run the CLI in this process, as if started as `node node_modules/prisma/build/index.js <args…>`:
// stdio and exit code are the CLI's own.
process.argv = [process.argv[0], cli, ...process.argv.slice(2)];
require(cli);

// Where the CLI looks for `schema-engine-<binary target>` (its engine lookup, minus the env vars):
// @prisma/engines (where install-time download puts it), then next to / above / inside the prisma package.
async function nativeEngineInstalled() {
  try {
    const prismaRequire = createRequire(join(prismaDir, 'package.json'));
    const enginesPkg = prismaRequire.resolve('@prisma/engines/package.json');
    const { getBinaryTargetForCurrentPlatform } = createRequire(enginesPkg)('@prisma/get-platform');
    const target = await getBinaryTargetForCurrentPlatform();
    const name = `schema-engine-${target}${target === 'windows' ? '.exe' : ''}`;
    const dirs = [dirname(enginesPkg), prismaDir, dirname(prismaDir), join(prismaDir, 'runtime')];
    return dirs.some((dir) => existsSync(join(dir, name)));
  } catch {
    return false; // can't tell: the shim works either way
  }
}
