// Merge suggestions for a lead: clusters of the same error type and top frame whose
// templates differ only in positions proven variable elsewhere, i.e. where another cluster's merged
// pattern (or template) has a mask at those very positions and the same tokens around them. The
// second stage could not prove it inside the shape (too few distinct values there); the evidence
// from the rest of the system is offered to a person, who merges with one click (merge-clusters.ts).
import { z } from 'zod';
import { authorize, type Principal } from '@/lib/auth';
import { pg } from '@/lib/db';
import { maskErrorText } from '@/lib/masking';
import { clusterScope, findCluster } from './cluster-scope';
import { MASK } from './mask-message';

export const MergeSuggestion = z.object({
  id: z.uuid().describe('The cluster to merge with'),
  template: z.string(),
  count: z.int(),
  openCount: z.int(),
  positions: z.array(z.int()).describe('Token positions that differ (0-based), proven variable by evidence'),
  evidence: z.string().describe('A pattern elsewhere with a mask at those positions'),
});
export type MergeSuggestion = z.infer<typeof MergeSuggestion>;
/** GET /api/v1/clusters/{id}/merge-suggestions. */
export const MergeSuggestionsView = z.object({ suggestions: z.array(MergeSuggestion) });

/** Candidates of one shape, and evidence patterns, looked at: bounded like the second stage. */
const MAX_CANDIDATES = 1_000;
const MAX_EVIDENCE = 5_000;
/** More differing positions than this is a different message, not a variable part. */
const MAX_POSITIONS = 2;

/** Positions where `a` and `b` (same length) differ, both words (not masks); null when they differ otherwise. */
export function differingPositions(a: string[], b: string[]): number[] | null {
  if (a.length !== b.length) return null;
  const out: number[] = [];
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    if (a[i] === MASK || b[i] === MASK) return null;
    out.push(i);
    if (out.length > MAX_POSITIONS) return null;
  }
  return out.length ? out : null;
}

/** `evidence` has a mask at each position and `tokens`' words everywhere else. */
export function proves(evidence: string[], tokens: string[], positions: number[]): boolean {
  if (evidence.length !== tokens.length) return false;
  for (let i = 0; i < tokens.length; i++) {
    if (positions.includes(i) ? evidence[i] !== MASK : evidence[i] !== tokens[i]) return false;
  }
  return true;
}

export async function mergeSuggestions(actor: Principal, id: string): Promise<MergeSuggestion[]> {
  authorize(actor, 'clusters.merge');
  const scope = await clusterScope(actor, 'clusters.merge');
  const cluster = await findCluster(id, scope);
  if (!cluster.shape) return [];
  const sql = pg();
  const inScope = scope.restrict
    ? sql`AND EXISTS (SELECT 1 FROM cluster_sources cs WHERE cs.cluster_id = c.id AND cs.source_id = ANY(${scope.restrict}::uuid[]))`
    : sql``;
  const candidates = await sql<{ id: string; template: string; count: number; open_count: number }[]>`
    SELECT c.id::text, coalesce(c.pattern, c.template) AS template, c.count, c.open_count FROM clusters c
    WHERE c.shape = ${cluster.shape} AND c.merged_into_id IS NULL AND c.id <> ${cluster.id}::uuid AND c.count > 0 ${inScope}
    ORDER BY c.last_seen DESC LIMIT ${MAX_CANDIDATES}`;
  const mine = (cluster.pattern ?? cluster.template).split(' ');
  const differing = candidates.flatMap((c) => {
    const positions = differingPositions(mine, c.template.split(' '));
    return positions ? [{ ...c, positions }] : [];
  });
  if (differing.length === 0) return [];
  // Evidence: patterns of the same error type with a mask, elsewhere (other frames, other sources)
  // within what the lead may read: another team's templates are neither shown nor used.
  const evidence = await sql<{ template: string }[]>`
    SELECT DISTINCT coalesce(c.pattern, c.template) AS template FROM clusters c
    WHERE c.error_type IS NOT DISTINCT FROM ${cluster.errorType} AND c.id <> ${cluster.id}::uuid
      AND coalesce(c.pattern, c.template) LIKE ${`%${MASK}%`} ${inScope}
    LIMIT ${MAX_EVIDENCE}`;
  const patterns = evidence.map((e) => e.template.split(' ')).filter((t) => t.length === mine.length);
  return differing.flatMap((c) => {
    const proof = patterns.find((p) => proves(p, mine, c.positions));
    return proof
      ? [
          {
            id: c.id,
            template: maskErrorText(c.template)!,
            count: c.count,
            openCount: c.open_count,
            positions: c.positions,
            evidence: maskErrorText(proof.join(' '))!,
          },
        ]
      : [];
  });
}
