'use server';
// Correcting a cluster (issue 16): preview and split by a field, undo a merge, take a merge
// suggestion. Guard (same origin, session, permission), then the same lib/ functions the JSON API calls.
import { revalidatePath } from 'next/cache';
import { ZodError } from 'zod';
import { actionActor } from '@/lib/auth/guard';
import { mergeClusters } from '@/lib/clustering/merge-clusters';
import { previewSplit, splitCluster, type SplitField, type SplitPart } from '@/lib/clustering/split-cluster';
import { undoMerge } from '@/lib/clustering/undo-merge';
import { AppError } from '@/lib/errors';

export interface CorrectionState {
  ok?: string;
  error?: string;
  /** A split's preview (or result): the parts and their counts. */
  parts?: SplitPart[];
  by?: string;
  /** Where the page goes next (the cluster that stayed after a merge). */
  goTo?: string;
}

const text = (f: FormData, k: string) => {
  const v = f.get(k);
  return typeof v === 'string' ? v.trim() : '';
};

function failure(e: unknown): CorrectionState {
  if (e instanceof AppError) return { error: e.message };
  if (e instanceof ZodError) return { error: e.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ') };
  throw e;
}

function refresh(...ids: string[]) {
  for (const id of ids) revalidatePath(`/clusters/${id}`);
  revalidatePath('/clusters');
  revalidatePath('/inbox');
}

/** The split field from the form: kind plus the path or header name it needs. */
function splitFieldOf(f: FormData): SplitField {
  const kind = text(f, 'field');
  if (kind === 'payload') return { field: 'payload', path: text(f, 'path') };
  if (kind === 'header') return { field: 'header', name: text(f, 'name') };
  if (kind === 'topFrame') return { field: 'topFrame' };
  return { field: 'errorType' };
}

/** Preview or split, by the form's `intent`. */
export async function splitClusterAction(_: CorrectionState, f: FormData): Promise<CorrectionState> {
  try {
    const actor = await actionActor('clusters.split');
    const id = text(f, 'clusterId');
    const by = splitFieldOf(f);
    if (text(f, 'intent') !== 'split') {
      const p = await previewSplit(actor, id, { by });
      return { parts: p.parts, by: p.by };
    }
    const r = await splitCluster(actor, id, { by, reason: text(f, 'reason') });
    refresh(r.clusterId, ...r.parts.map((p) => p.clusterId!));
    return { ok: `Split into ${r.parts.length} clusters.`, parts: r.parts, by: r.by };
  } catch (e) {
    return failure(e);
  }
}

/** Undo the merge of cluster `mergedId` into this one. */
export async function undoMergeAction(_: CorrectionState, f: FormData): Promise<CorrectionState> {
  try {
    const actor = await actionActor('clusters.split');
    const r = await undoMerge(actor, text(f, 'mergedId'), { reason: text(f, 'reason') });
    refresh(r.clusterId, r.from);
    return { ok: `Merge undone: ${r.count.toLocaleString('en')} dead letter${r.count === 1 ? '' : 's'} moved back.` };
  } catch (e) {
    return failure(e);
  }
}

/** One click on a merge suggestion: merge the suggested cluster into this one, the evidence as the reason. */
export async function acceptMergeSuggestionAction(_: CorrectionState, f: FormData): Promise<CorrectionState> {
  try {
    const actor = await actionActor('clusters.merge');
    const into = text(f, 'clusterId');
    const r = await mergeClusters(actor, text(f, 'suggestedId'), { into, reason: `Merge suggestion: ${text(f, 'evidence')}`.slice(0, 1000) });
    refresh(r.clusterId, r.into);
    return { ok: `Merged: ${r.count.toLocaleString('en')} dead letter${r.count === 1 ? '' : 's'} moved.`, goTo: r.into };
  } catch (e) {
    return failure(e);
  }
}
