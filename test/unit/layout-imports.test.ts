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
    return /\.(tsx?|mts|mjs)$/.test(e.name) ? [path] : [];
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

// docs/layout.md's layers of lib/: every folder (or top-level file) of lib/ is placed in one layer,
// and imports point down or across, never up. Across one layer they may not make a cycle; no two
// units of lib/ import each other. A new folder fails the first check until it is placed here.
const LAYERS = ['core', 'model', 'domain', 'intake', 'adapters', 'capabilities', 'surfaces'] as const;
type Layer = (typeof LAYERS)[number];

const LIB_LAYER: Record<string, Layer> = {
  // core: the plumbing every capability stands on; knows no dead letter or source.
  admission: 'core',
  audit: 'core',
  auth: 'core',
  broker: 'core',
  clock: 'core',
  db: 'core',
  'db-url': 'core',
  duration: 'core',
  enums: 'core',
  env: 'core',
  'env-secrets': 'core',
  errors: 'core',
  export: 'core',
  log: 'core',
  masking: 'core',
  outbound: 'core',
  'plain-issues': 'core',
  'query-keys': 'core',
  queue: 'core',
  'request-body': 'core',
  redis: 'core',
  search: 'core',
  'text-input': 'core',
  wire: 'core',
  'worker-runner': 'core',
  'zod-issues': 'core',
  // model: what a source and a dead letter are, and the ports adapters implement.
  deadletters: 'model',
  model: 'model',
  // domain: what happens to a dead letter once written; the writer calls into it.
  clustering: 'domain',
  notifications: 'domain',
  ownership: 'domain',
  // intake: the writers of dead-letter rows.
  intake: 'intake',
  // adapters: the broker runtime and the connectors, one per broker kind.
  connectors: 'adapters',
  runtime: 'adapters',
  // capabilities: what pages, routes and workers call.
  admin: 'capabilities',
  alarms: 'capabilities',
  'audit-trail': 'capabilities',
  health: 'capabilities',
  ingest: 'capabilities',
  redrive: 'capabilities',
  'redrive-rules': 'capabilities',
  retention: 'capabilities',
  rollups: 'capabilities',
  sla: 'capabilities',
  sources: 'capabilities',
  'saved-views': 'capabilities',
  // surfaces: what describes or drives all of the above.
  assistant: 'surfaces',
  demo: 'surfaces',
  metrics: 'surfaces',
  openapi: 'surfaces',
};

// Every form a module names another in: `from '…'`, `import '…'`, `import('…')` with any quote (a
// template literal without a substitution included), and `require('…')`.
const SPECIFIER = /(?:\bfrom|\bimport|\brequire)\s*\(?\s*(['"`])([^'"`$]+)\1/g;
const specifiers = (text: string) => [...text.matchAll(SPECIFIER)].map((m) => m[2]!);
// The one lib/ file that may import from app/: the route registry reads the route modules it describes.
const LIB_READS_APP = new Set(['lib/openapi/routes.ts']);
const lib = join(root, 'lib');

function libUnit(path: string): string {
  const [first, ...rest] = relative(lib, path).split(sep);
  return rest.length > 0 ? first! : first!.replace(/\.(d\.)?(tsx?|mts|mjs)$/, '');
}

/** unit → the units it imports, each with one file that does (for the message). */
function libGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(lib)) {
    const from = libUnit(file);
    const edges = graph.get(from) ?? graph.set(from, new Map()).get(from)!;
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      const target = spec!.startsWith('@/lib/') ? join(root, spec!.slice(2)) : spec!.startsWith('.') ? resolve(dirname(file), spec!) : null;
      if (!target?.startsWith(lib + sep)) continue;
      const to = libUnit(target);
      if (to !== from && !edges.has(to)) edges.set(to, relative(root, file));
    }
  }
  return graph;
}

describe('lib/ layers', () => {
  const graph = libGraph();

  it('reads every form of import', () => {
    const text = [
      "import { a } from '@/lib/a';",
      "export * from './b';",
      "import type { C } from '../c';",
      "import '@/lib/d';",
      "await import('@/lib/e');",
      'await import(`@/lib/f`);',
      "const g = require('@/lib/g');",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text with a substitution, which names no one module
      'await import(`@/lib/${name}`);',
    ].join('\n');
    expect(specifiers(text)).toEqual(['@/lib/a', './b', '../c', '@/lib/d', '@/lib/e', '@/lib/f', '@/lib/g']);
  });

  it('imports nothing from app/ or components/ (the route registry aside)', () => {
    const up: string[] = [];
    for (const file of sourceFiles(lib))
      for (const spec of specifiers(readFileSync(file, 'utf8')))
        if (/^@\/(app|components)\//.test(spec) && !LIB_READS_APP.has(relative(root, file))) up.push(`${relative(root, file)} → ${spec}`);
    expect(up).toEqual([]);
  });
  const rank = (unit: string) => LAYERS.indexOf(LIB_LAYER[unit]!);

  it('places every folder and top-level file of lib/ in a layer, and no more', () => {
    const units = [...new Set(sourceFiles(lib).map(libUnit))];
    expect(units.filter((u) => !(u in LIB_LAYER)).sort()).toEqual([]);
    expect(
      Object.keys(LIB_LAYER)
        .filter((u) => !units.includes(u))
        .sort(),
    ).toEqual([]);
  });

  it('imports nothing from a higher layer', () => {
    const upward: string[] = [];
    for (const [from, edges] of graph)
      for (const [to, file] of edges) if (rank(to) > rank(from)) upward.push(`${from} (${LIB_LAYER[from]}) → ${to} (${LIB_LAYER[to]}): ${file}`);
    expect(upward.sort()).toEqual([]);
  });

  it('has no two units importing each other, and no cycle', () => {
    const mutual: string[] = [];
    for (const [from, edges] of graph)
      for (const [to, file] of edges) if (from < to && graph.get(to)?.has(from)) mutual.push(`${from} ↔ ${to}: ${file}, ${graph.get(to)!.get(from)}`);
    expect(mutual.sort()).toEqual([]);
    // Tarjan's strongly connected components: any of more than one unit is a cycle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const cycles: string[] = [];
    const visit = (v: string) => {
      index.set(v, index.size);
      low.set(v, index.get(v)!);
      stack.push(v);
      for (const w of graph.get(v)?.keys() ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) === index.get(v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          component.push(w);
        } while (w !== v);
        if (component.length > 1) cycles.push(component.sort().join(' '));
      }
    };
    for (const v of graph.keys()) if (!index.has(v)) visit(v);
    expect(cycles).toEqual([]);
  });
});

// docs/style.md's barrel rule: an index.ts of lib/ only re-exports; code lives in named files. The
// index files that still hold code are listed here by name, each with why; the list only shrinks.
const INDEX_WITH_CODE: Record<string, string> = {
  'lib/admission/index.ts': 'the write budget: one concern in one file, not yet split into named files',
  'lib/connectors/index.ts': 'the connector registry (kind → connector), imported as the folder by its own files and by lib/',
  ...Object.fromEntries(
    ['azure-queue', 'bullmq', 'nats', 'rabbitmq', 'sidekiq', 'sqs'].map((kind) => [
      `lib/connectors/${kind}/index.ts`,
      "the kind's Connector object, which assembles the kind's named files",
    ]),
  ),
  'lib/demo/past/index.ts': "the demo history's player, which assembles each source's SourceHistory file",
  'lib/redrive/destinations/index.ts': "the choice of a source's destination, which assembles the destination files",
};

/** What is left of a file once its comments and `export … from '…'` statements are taken out. */
function beyondReExports(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .replace(/export\s+(type\s+)?(\*(\s+as\s+\w+)?|\{[^}]*\})\s+from\s+'[^']+';?/g, '')
    .trim();
}

describe('barrels', () => {
  it('has every index.ts of lib/ only re-export, but the listed ones', () => {
    const withCode = sourceFiles(lib)
      .filter((file) => file.endsWith(`${sep}index.ts`) && beyondReExports(readFileSync(file, 'utf8')) !== '')
      .map((file) => relative(root, file).split(sep).join('/'))
      .sort();
    expect(withCode).toEqual(Object.keys(INDEX_WITH_CODE).sort());
  });
});
