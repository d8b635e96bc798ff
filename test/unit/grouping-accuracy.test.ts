// The clustering tests' scorer: grouping accuracy counts a message only when its predicted cluster
// holds exactly its true group, so both a split and a merge cost every member of the groups involved.
import { describe, expect, it } from 'vitest';
import { formatScore, readPredictions, scoreGrouping } from '../support/grouping-accuracy';

describe('grouping accuracy', () => {
  it('is 1 for the true grouping under other names', () => {
    const s = scoreGrouping(['a', 'a', 'b', 'c'], ['x', 'x', 'y', 'z']);
    expect(s).toMatchObject({ messages: 4, trueGroups: 3, predictedClusters: 3, groupingAccuracy: 1, precision: 1, recall: 1, f1: 1 });
  });

  it('counts no member of a split group', () => {
    // Group a split in two: its 3 messages are wrong, b's 2 are right.
    const s = scoreGrouping(['a', 'a', 'a', 'b', 'b'], ['1', '1', '2', '3', '3']);
    expect(s.groupingAccuracy).toBeCloseTo(2 / 5);
    expect(s.precision).toBe(1);
    expect(s.recall).toBeCloseTo(2 / 4); // of a's 3 pairs and b's 1, a keeps 1 and b 1
  });

  it('counts no member of merged groups', () => {
    const s = scoreGrouping(['a', 'a', 'b', 'c'], ['1', '1', '1', '2']);
    expect(s.groupingAccuracy).toBeCloseTo(1 / 4);
    expect(s.precision).toBeCloseTo(1 / 3);
    expect(s.recall).toBe(1);
  });

  it('refuses predictions of another length', () => {
    expect(() => scoreGrouping(['a', 'b'], ['1'])).toThrow('predictions have 1 lines, the corpus 2');
  });

  it('reads predictions as the cluster CLI prints them and reports as the benchmarks do', () => {
    expect(readPredictions('k1\nk2\n\n')).toEqual(['k1', 'k2', '']);
    expect(formatScore(scoreGrouping(['a', 'a'], ['k', 'k']))).toBe(
      'messages 2  true groups 1  predicted clusters 1\npairwise precision 1.0000  recall 1.0000  F1 1.0000\ngrouping accuracy 1.0000',
    );
  });
});
