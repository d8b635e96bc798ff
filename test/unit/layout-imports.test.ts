// docs/layout.md's rule: a page never imports from a sibling route; what two routes share lives in
// components/. A relative import in a page's tree may reach its own folder or an ancestor's, never
// across. (app/api is outside the rule: /openapi.json re-exports /openapi's handler on purpose.)
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(tsx?|mjs)$/.test(e.name) ? [path] : [];
  });
}

const IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

describe('app/ layout', () => {
  it('no page file imports from a sibling route', () => {
    const crossings: string[] = [];
    for (const file of ['(dashboard)', '(auth)'].flatMap((group) => sourceFiles(join(root, 'app', group)))) {
      const here = dirname(file);
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const target = dirname(resolve(here, spec!));
        // The target's folder must be this file's folder or one of its ancestors.
        if (!(here === target || here.startsWith(target + sep))) crossings.push(`${relative(root, file)} → ${spec}`);
      }
    }
    expect(crossings).toEqual([]);
  });
});
