// When the masking learns something (an empty value, a quoted fragment), a message already
// clustered gets another template and key. Open clusters are not re-keyed: the second stage, which
// runs when the first dead letter with the new key arrives, reads its kin's stored templates masked
// again by today's rules, so the new key folds into the cluster that holds the old one.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fingerprint, type ErrorInput } from '@/lib/clustering/fingerprint';
import { maskMessage } from '@/lib/clustering/mask-message';
import { kinFamilies } from '@/lib/clustering/merge-new-clusters';

const fixtures = fileURLToPath(new URL('../fixtures/clustering', import.meta.url));

// The kin as stored: each template, with the root of the cluster that holds it.
const stored = (rootOf: Record<string, string>) => Object.entries(rootOf).map(([template, root]) => ({ template, root }));

describe('a new ingest key for a message already clustered', () => {
  it('folds into the cluster stored under the old template', () => {
    // Stored before empty values were masked; the same message's template today.
    const kin = stored({
      'connection from <*> () at <*>': 'old',
      'connection from <*> at <*>': 'new',
    });
    const { families } = kinFamilies(kin, false);
    expect(families).toHaveLength(1);
    expect(new Set(families[0]!.map((k) => k.root))).toEqual(new Set(['old', 'new']));
  });

  it('folds only the templates that mask alike today', () => {
    const kin = stored({
      'lease lost on <*> [] after <*>': 'old',
      'lease lost on <*> after <*>': 'new',
      'lease renewed on <*> after <*>': 'other',
      'GET "GET <*>" failed': 'request',
    });
    const { families } = kinFamilies(kin, false);
    expect(families.map((f) => f.map((k) => k.root).sort())).toEqual([['new', 'old']]);
  });
});

describe('a merge a person undid', () => {
  it('is not redone through a third cluster that holds a template like each of theirs', () => {
    const kin = stored({
      'connection from <*> () at <*>': 'a',
      'lease lost on <*> [] after <*>': 'b',
      'connection from <*> at <*>': 'c',
      'lease lost on <*> after <*>': 'c',
    });
    const { families } = kinFamilies(kin, false, new Set(['a|b']));
    for (const f of families) {
      const roots = new Set(f.map((k) => k.root));
      expect(roots.has('a') && roots.has('b'), JSON.stringify(f)).toBe(false);
    }
    // Each of them still folds with the third, one at a time.
    expect(families.map((f) => [...new Set(f.map((k) => k.root))].sort().join('+'))).toEqual(['a+c']);
  });
});

describe('masking a template again', () => {
  it('gives the same template, for every message of the corpora', () => {
    const changed: string[] = [];
    for (const file of readdirSync(fixtures).filter((f) => f.endsWith('.ndjson'))) {
      for (const line of readFileSync(join(fixtures, file), 'utf8').split('\n')) {
        if (!line.trim()) continue;
        const { template } = fingerprint(JSON.parse(line) as ErrorInput);
        if (maskMessage(template).join(' ') !== template) changed.push(template);
      }
    }
    expect(changed).toEqual([]);
  }, 30_000);
});
