// Calling a server action the way the browser does (POST with a Next-Action header, arguments in
// React's reply encoding), so the browser suite can call every registered action as every role and
// from foreign origins. Action ids come from the build's server-reference manifest.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { APIRequestContext } from '@playwright/test';

interface ManifestEntry {
  workers: Record<string, unknown>;
  filename: string;
  exportedName: string;
}

export interface BuiltAction {
  id: string;
  file: string;
  name: string;
  /** A page whose worker holds the action: Next routes the POST there. */
  page: string;
}

export function builtActions(distDir = process.env.NEXT_DIST_DIR || '.next'): BuiltAction[] {
  const manifest = JSON.parse(readFileSync(path.join(distDir, 'server', 'server-reference-manifest.json'), 'utf8')) as {
    node: Record<string, ManifestEntry>;
  };
  return Object.entries(manifest.node).map(([id, e]) => {
    const worker = Object.keys(e.workers)[0] ?? 'app/page';
    const page =
      '/' +
      worker
        .replace(/^app\//, '')
        .replace(/\/?page$/, '')
        .split('/')
        .filter((s) => s && !/^\(.*\)$/.test(s))
        .map((s) => (s.startsWith('[') ? 'x' : s))
        .join('/');
    return { id, file: e.filename, name: e.exportedName, page };
  });
}

export interface ActionOutcome {
  status: number;
  /** What the action returned ({ ok } / { error } for the admin forms), or undefined when Next refused it. */
  result: Record<string, unknown> | undefined;
}

/** Calls `action(previousState = {}, formData)`; `origin: null` sends no Origin header at all. */
export async function callAction(
  request: APIRequestContext,
  action: BuiltAction,
  fields: Record<string, string>,
  origin: string | null,
): Promise<ActionOutcome> {
  // React's reply encoding: field "0" is the argument list; "$K1" points at a FormData whose
  // entries are the fields prefixed "_1_". The server decodes while the body streams in, so the
  // fields go before "0" (a FormData keeps that order; an object would put "0" first).
  const multipart = new FormData();
  for (const [k, v] of Object.entries(fields)) multipart.append(`_1_${k}`, v);
  multipart.append('0', JSON.stringify([{}, '$K1']));
  const res = await request.post(action.page, {
    headers: { 'next-action': action.id, accept: 'text/x-component', ...(origin === null ? {} : { origin }) },
    multipart,
    maxRedirects: 0,
  });
  const text = await res.text();
  const root = /^0:(\{.*\})$/m.exec(text);
  const ref = root ? /"a":"\$@(\w+)"/.exec(root[1]!)?.[1] : undefined;
  const line = ref ? new RegExp(`^${ref}:(.*)$`, 'm').exec(text)?.[1] : undefined;
  let result: Record<string, unknown> | undefined;
  if (line?.startsWith('{')) result = JSON.parse(line) as Record<string, unknown>;
  return { status: res.status(), result };
}
