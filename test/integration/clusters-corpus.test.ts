// Clustering as the product does it: a labelled corpus goes in through the one write path
// (recordDeadLetters: fingerprint, then the second stage on new fingerprints), each dead letter's
// cluster is read back from the database and scored (test/support/grouping-accuracy.ts).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { createSource } from '@/lib/sources/create-source';
import { recordDeadLetters, type NewDeadLetter } from '@/lib/intake/record-dead-letters';
import { closeDb, db, pg } from '@/lib/db';
import { resetDatabase } from '../support/db';
import { readLabels, scoreGrouping } from '../support/grouping-accuracy';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
// Dead letters from services in seven languages (test/fixtures/clustering/generate.mjs).
const corpus = resolve(repoRoot, 'test/fixtures/clustering/dlq-polyglot.ndjson');

interface CorpusLine {
  type?: string;
  message?: string;
  stack?: string;
}

const score = (keys: string[]): number => scoreGrouping(readLabels(corpus), keys).groupingAccuracy;

const lines = readFileSync(corpus, 'utf8')
  .split('\n')
  .filter((l) => l.trim().length > 0)
  .map((l) => JSON.parse(l) as CorpusLine);

const deadLetter = (e: CorpusLine, i: number): NewDeadLetter => ({
  messageId: `corpus-${i}`,
  payload: new TextEncoder().encode(`{"line":${i}}`),
  reason: 'Rejected',
  errorType: e.type ?? null,
  errorMessage: e.message ?? '',
  errorStack: e.stack ?? null,
  // In arrival order, a second apart: the corpus is a stream.
  deadAt: new Date(Date.UTC(2026, 10, 1) + i * 1000),
});

/** Each corpus line's cluster, as stored. */
async function storedClusters(): Promise<{ keys: string[]; onAlias: number }> {
  const rows = await pg()<{ message_id: string; cluster_id: string; merged_into_id: string | null }[]>`
    SELECT d.message_id, d.cluster_id::text, c.merged_into_id::text FROM dead_letters d JOIN clusters c ON c.id = d.cluster_id`;
  const byMessage = new Map(rows.map((r) => [r.message_id, r]));
  const keys = lines.map((_, i) => {
    const r = byMessage.get(`corpus-${i}`);
    if (!r) throw new Error(`corpus-${i} was not stored with a cluster`);
    return r.merged_into_id ?? r.cluster_id;
  });
  return { keys, onAlias: rows.filter((r) => r.merged_into_id !== null).length };
}

describe('clustering through the ingest write path', () => {
  beforeEach(resetDatabase);
  afterAll(closeDb);

  it.each([
    ['in batches of 50', 50],
    ['one dead letter at a time', 1],
  ])(
    'scores at least 0.98 on the polyglot corpus, %s',
    async (_, batch) => {
      await createTeam(SYSTEM, { name: 'commerce' });
      const source = await createSource(SYSTEM, { name: 'orders', team: 'commerce' });
      const all = lines.map(deadLetter);
      for (let i = 0; i < all.length; i += batch) await recordDeadLetters(source, all.slice(i, i + batch));

      const { keys, onAlias } = await storedClusters();
      expect(score(keys)).toBeGreaterThanOrEqual(0.98);
      // Merged fingerprints leave no member behind on the alias: one cluster id per cause everywhere.
      expect(onAlias).toBe(0);
      // Counts are kept, and still add up after the merges moved them.
      const clusters = await db().cluster.findMany({ where: { mergedIntoId: null } });
      expect(clusters.reduce((n, c) => n + c.count, 0)).toBe(lines.length);
      const members = await db().deadLetter.groupBy({ by: ['clusterId'], _count: true });
      expect(new Map(members.map((m) => [m.clusterId, m._count]))).toEqual(new Map(clusters.filter((c) => c.count > 0).map((c) => [c.id, c.count])));
      const hours = await db().clusterHour.aggregate({ _sum: { count: true } });
      expect(hours._sum.count).toBe(lines.length);
    },
    180_000,
  );
});
