// The cluster page's corrections panel, a server component of its own: where the split
// form, the merges that can be undone and the merge suggestions are offered, by permission.
import { can } from '@/lib/auth';
import type { Actor } from '@/lib/auth';
import { mergeSuggestions } from '@/lib/clustering/merge-suggestions';
import { undoableMerges } from '@/lib/clustering/undo-merge';
import { MergeSuggestion, SplitClusterForm, UndoMergeForm } from './cluster-corrections';

export async function ClusterCorrections({ actor, clusterId, splitFrom }: { actor: Actor; clusterId: string; splitFrom: string | null }) {
  const canSplit = can(actor.role, 'clusters.split');
  const canMerge = can(actor.role, 'clusters.merge');
  if (!canSplit && !canMerge) return null;
  const [merges, suggestions] = await Promise.all([canSplit ? undoableMerges(clusterId) : [], canMerge ? mergeSuggestions(actor, clusterId) : []]);
  return (
    <section className="card" data-testid="cluster-corrections">
      <h2>Correct the grouping</h2>
      {splitFrom ? (
        <p>
          Split off <a href={`/clusters/${splitFrom}`}>another cluster</a>.
        </p>
      ) : null}
      {canSplit ? <SplitClusterForm clusterId={clusterId} /> : null}
      {canSplit && merges.length ? (
        <>
          <h3>Merged into this cluster</h3>
          {merges.map((m) => (
            <UndoMergeForm key={m.id} mergedId={m.id} template={m.template} />
          ))}
        </>
      ) : null}
      {canMerge && suggestions.length ? (
        <>
          <h3>Merge suggestions</h3>
          {suggestions.map((s) => (
            <MergeSuggestion key={s.id} clusterId={clusterId} suggestion={s} />
          ))}
        </>
      ) : null}
    </section>
  );
}
