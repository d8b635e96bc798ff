// The docs a newcomer reads: a README short enough to read in ten minutes, the rest in docs/ with
// links that lead somewhere, and source comments that say why without pointing at a tracker the
// reader may not have (an issue number explains nothing once the thread is gone).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const README_MAX_BYTES = 16_384;

function walk(dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name.startsWith('.') ? [] : walk(path, keep);
    return keep(e.name) ? [path] : [];
  });
}

const markdownFiles = () => [join(root, 'README.md'), ...walk(join(root, 'docs'), (n) => n.endsWith('.md'))];

/** The text outside fenced code blocks, line by line, with inline code blanked out. */
function proseLines(markdown: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, i) => {
    if (/^\s*(```|~~~)/.test(text)) fenced = !fenced;
    else if (!fenced) out.push({ line: i + 1, text: text.replace(/`[^`]*`/g, (m) => ' '.repeat(m.length)) });
  });
  return out;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const LINK = /\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

describe('README.md', () => {
  it(`is at most ${README_MAX_BYTES} bytes: the rest belongs in docs/`, () => {
    const bytes = statSync(join(root, 'README.md')).size;
    expect(bytes, `README.md is ${bytes} bytes; move sections to the docs/ page they belong to`).toBeLessThanOrEqual(README_MAX_BYTES);
  });

  it('docs/ has no wip folder', () => {
    expect(existsSync(join(root, 'docs', 'wip'))).toBe(false);
  });
});

describe('relative links in README.md and docs/', () => {
  it('each leads to a file that exists, and to a heading of it when it names one', () => {
    const broken: string[] = [];
    const headingsOf = new Map<string, Set<string>>();
    const headings = (file: string) => {
      if (!headingsOf.has(file)) headingsOf.set(file, anchors(readFileSync(file, 'utf8')));
      return headingsOf.get(file)!;
    };
    for (const file of markdownFiles()) {
      for (const { line, text } of proseLines(readFileSync(file, 'utf8'))) {
        for (const [, href] of text.matchAll(LINK)) {
          if (/^[a-z][a-z0-9+.-]*:/i.test(href!)) continue; // http:, https:, mailto:
          const [path, anchor] = href!.split('#', 2) as [string, string | undefined];
          const target = path === '' ? file : resolve(dirname(file), decodeURI(path));
          const where = `${relative(root, file)}:${line} → ${href}`;
          if (!existsSync(target)) broken.push(`${where} (no such file)`);
          else if (anchor && target.endsWith('.md') && !headings(target).has(decodeURIComponent(anchor).toLowerCase())) {
            broken.push(`${where} (no such heading)`);
          }
        }
      }
    }
    expect(broken, broken.join('\n')).toEqual([]);
  });
});

// Applied migrations are checksummed by Prisma: editing one, even a comment, makes `migrate deploy`
// refuse the database, so prisma/migrations/ is left as it was written.
const SOURCE_DIRS = ['lib', 'app', 'workers', 'scripts', 'test', 'prisma'];
const SOURCE_FILE = /\.(ts|tsx|mjs|sql)$/;
const CITES_ISSUE = /\bissues?\s+#?\d+|\bissue\s*#/i;

function trackedSourceFiles(): string[] {
  let files: string[];
  try {
    files = execFileSync('git', ['ls-files', '-z', '--', ...SOURCE_DIRS], { cwd: root, encoding: 'utf8' })
      .split('\0')
      .filter(Boolean)
      .map((f) => join(root, f));
  } catch {
    files = SOURCE_DIRS.flatMap((d) => walk(join(root, d), (n) => SOURCE_FILE.test(n)));
  }
  return files.filter((f) => SOURCE_FILE.test(f) && !relative(root, f).startsWith(join('prisma', 'migrations')) && existsSync(f));
}

describe('source comments', () => {
  it('cite no issue number: a comment says why in its own words', () => {
    const found: string[] = [];
    for (const file of trackedSourceFiles()) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((text, i) => {
          if (CITES_ISSUE.test(text)) found.push(`${relative(root, file)}:${i + 1}: ${text.trim()}`);
        });
    }
    expect(found, `say the why instead of the issue number:\n${found.join('\n')}`).toEqual([]);
  });
});
