// When the masking learns something (an empty value, a quoted fragment), a message already
// clustered gets another template and key. Open clusters are not re-keyed: the second stage, which
// runs when the first dead letter with the new key arrives, reads its kin's stored templates masked
// again by today's rules, so the new key folds into the cluster that holds the old one.
import { describe, expect, it } from 'vitest';
import { kinFamilies } from '@/lib/clustering/merge-new-clusters';

describe('a new ingest key for a message already clustered', () => {
  it('folds into the cluster stored under the old template', () => {
    // Stored before empty values were masked; the same message's template today.
    const kin = [
      { template: 'connection from <*> () at <*>', root: 'old' },
      { template: 'connection from <*> at <*>', root: 'new' },
    ];
    const { families } = kinFamilies(kin, false);
    expect(families).toHaveLength(1);
    expect(new Set(families[0]!.map((k) => k.root))).toEqual(new Set(['old', 'new']));
  });

  it('folds only the templates that mask alike today', () => {
    const kin = [
      { template: 'near "DELETE <*>": syntax error', root: 'old' },
      { template: 'near "<*>": syntax error', root: 'new' },
      { template: 'disk full on <*>', root: 'other' },
    ];
    const { families } = kinFamilies(kin, false);
    expect(families.map((f) => f.map((k) => k.root).sort())).toEqual([['new', 'old']]);
  });
});
