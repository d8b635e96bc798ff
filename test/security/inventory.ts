// What exists under app/: every exported route handler (method + path template) and every server
// action (file-level 'use server' exports). The registry must cover all of it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const APP = path.resolve('app');
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

/** app/api/v1/sources/[id]/route.ts → /api/v1/sources/:id; route groups vanish; catch-alls become *. */
export function routePath(file: string): string {
  return routePathUnder(file, APP);
}

function routePathUnder(file: string, root: string): string {
  const segments = path
    .relative(root, path.dirname(file))
    .split(path.sep)
    .filter((s) => s && !/^\(.*\)$/.test(s))
    .map((s) => (/^\[\[?\.\.\./.test(s) ? '*' : s.replace(/^\[(\w+)\]$/, ':$1')));
  return `/${segments.join('/')}`;
}

/** A route file in any form Next accepts: a route.js is as live as a route.ts. */
export const ROUTE_FILE = /\/route\.(?:ts|tsx|js|jsx|mjs)$/;

/** Method exports found by reading the source: only where the module cannot be imported. */
function exportedBySource(src: string): Set<string> {
  const names = new Set<string>();
  for (const m of src.matchAll(/export\s+(?:async\s+)?function\s+([A-Z]+)\b/g)) names.add(m[1]!);
  for (const m of src.matchAll(/export\s+(?:const|let|var)\s+([A-Z]+)\s*[:=]/g)) names.add(m[1]!);
  for (const m of src.matchAll(/export\s+(?:const|let|var)\s*\{([^}]+)\}\s*=/g))
    for (const n of m[1]!.split(','))
      names.add(
        n
          .trim()
          .split(/\s*:\s*/)
          .pop()!,
      );
  for (const m of src.matchAll(/export\s*\{([^}]+)\}/g))
    for (const n of m[1]!.split(','))
      names.add(
        n
          .trim()
          .split(/\s+as\s+/)
          .pop()!,
      );
  return names;
}

/**
 * Every exported route handler under `dir` (app/ by default): the methods are read from the module
 * itself (so `export const GET: Handler = …` and `export * from …` count), and from its source only
 * when it cannot be imported here; a file that re-exports everything and cannot be imported fails.
 */
export async function routeHandlers(dir = APP): Promise<{ method: string; path: string; file: string }[]> {
  const out: { method: string; path: string; file: string }[] = [];
  for (const file of files(dir).filter((f) => ROUTE_FILE.test(f))) {
    let names: Set<string>;
    try {
      names = new Set(Object.keys((await import(/* @vite-ignore */ file)) as object));
    } catch (err) {
      const src = readFileSync(file, 'utf8');
      if (/export\s*\*/.test(src)) throw new Error(`${file}: re-exports with export *, and cannot be imported to see what: ${String(err)}`);
      names = exportedBySource(src);
    }
    for (const n of names) if (METHODS.includes(n)) out.push({ method: n, path: routePathUnder(file, dir), file: path.relative('.', file) });
  }
  return out;
}

const USE_SERVER = /^\s*(?:\/\/[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*['"]use server['"]/;

export function serverActions(): { file: string; name: string }[] {
  const out: { file: string; name: string }[] = [];
  for (const file of files(APP).filter((f) => /\.tsx?$/.test(f))) {
    const src = readFileSync(file, 'utf8');
    if (!USE_SERVER.test(src)) continue;
    // A 'use server' file may export only async functions (Next checks), so every exported const is one:
    // `export const x = action(...)` (lib/auth/action.ts) as well as `export const x = async (...) => …`.
    for (const m of src.matchAll(/export\s+(?:async\s+function\s+(\w+)|const\s+(\w+)\s*=)/g)) {
      out.push({ file: path.relative('.', file), name: (m[1] ?? m[2])! });
    }
  }
  return out;
}

/** Files with a 'use server' inside a function: inline actions the registry cannot name. */
export function inlineServerActions(): string[] {
  return files(APP)
    .filter((f) => /\.tsx?$/.test(f))
    .filter((f) => {
      const src = readFileSync(f, 'utf8');
      return !USE_SERVER.test(src) && /['"]use server['"]/.test(src);
    })
    .map((f) => path.relative('.', f));
}
