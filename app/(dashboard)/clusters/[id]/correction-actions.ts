'use server';
// Correcting a cluster: preview and split by a field, undo a merge, take a merge
// suggestion. The action client (guard, form, errors), then the same lib/ functions the JSON API calls.
import { z } from 'zod';
import { action, form } from '@/lib/auth/action';
import { mergeClusters } from '@/lib/clustering/merge-clusters';
import { previewSplit, splitCluster, type SplitField } from '@/lib/clustering/split-cluster';
import { undoMerge } from '@/lib/clustering/undo-merge';
import { deadLetterCount } from '@/lib/deadletters/count-label';
import { refreshClusters } from './refresh';

/** The split field from the form: kind plus the path or header name it needs. */
function splitFieldOf(f: { field: string; path: string; name: string }): SplitField {
  if (f.field === 'payload') return { field: 'payload', path: f.path };
  if (f.field === 'header') return { field: 'header', name: f.name };
  if (f.field === 'topFrame') return { field: 'topFrame' };
  return { field: 'errorType' };
}

/**
 * Preview or split, by the form's `intent`. The answer carries the parts and their counts; a preview
 * has no message (the form then offers the split), a split has one.
 */
export const splitClusterAction = action(
  'clusters.split',
  z.object({ clusterId: form.text, field: form.text, path: form.text, name: form.text, intent: form.text, reason: form.text }),
  async (input, { actor }) => {
    const by = splitFieldOf(input);
    if (input.intent !== 'split') {
      const p = await previewSplit(actor, input.clusterId, { by });
      return { parts: p.parts, by: p.by };
    }
    const r = await splitCluster(actor, input.clusterId, { by, reason: input.reason });
    refreshClusters(r.clusterId, ...r.parts.map((p) => p.clusterId!));
    return { message: `Split into ${r.parts.length} clusters.`, parts: r.parts, by: r.by };
  },
);

/** Undo the merge of cluster `mergedId` into this one. */
export const undoMergeAction = action('clusters.split', z.object({ mergedId: form.text, reason: form.text }), async ({ mergedId, reason }, { actor }) => {
  const r = await undoMerge(actor, mergedId, { reason });
  refreshClusters(r.clusterId, r.from);
  return { message: `Merge undone: ${deadLetterCount(r.count)} moved back.` };
});

/** One click on a merge suggestion: merge the suggested cluster into this one, the evidence as the reason. */
export const acceptMergeSuggestionAction = action(
  'clusters.merge',
  z.object({ clusterId: form.text, suggestedId: form.text, evidence: form.text }),
  async ({ clusterId, suggestedId, evidence }, { actor }) => {
    const r = await mergeClusters(actor, suggestedId, { into: clusterId, reason: `Merge suggestion: ${evidence}`.slice(0, 1000) });
    refreshClusters(r.clusterId, r.into);
    return { message: `Merged: ${deadLetterCount(r.count)} moved.`, goTo: r.into };
  },
);
