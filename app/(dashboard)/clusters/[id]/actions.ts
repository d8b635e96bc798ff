'use server';
// Cluster server actions: guard (same origin, session, permission), then the same lib/ functions the
// JSON API calls.
import { revalidatePath } from 'next/cache';
import { ZodError } from 'zod';
import { actionActor } from '@/lib/auth/guard';
import { archiveCluster } from '@/lib/clustering/archive-cluster';
import { mergeClusters } from '@/lib/clustering/merge-clusters';
import { AppError } from '@/lib/errors';

export interface ClusterActionState {
  ok?: string;
  error?: string;
  /** After a merge: the cluster that stayed, where the page goes next. */
  into?: string;
}

const text = (f: FormData, k: string) => {
  const v = f.get(k);
  return typeof v === 'string' ? v.trim() : '';
};

function failure(e: unknown): ClusterActionState {
  if (e instanceof AppError) return { error: e.message };
  if (e instanceof ZodError) return { error: e.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ') };
  throw e;
}

function refresh(...ids: string[]) {
  for (const id of ids) revalidatePath(`/clusters/${id}`);
  revalidatePath('/clusters');
  revalidatePath('/inbox');
}

/** Archive every open dead letter of this cluster in the user's sources, with a reason. */
export async function archiveClusterAction(_: ClusterActionState, f: FormData): Promise<ClusterActionState> {
  try {
    const actor = await actionActor('deadletters.archive');
    const r = await archiveCluster(actor, text(f, 'clusterId'), { reason: text(f, 'reason') });
    refresh(r.clusterId);
    return { ok: `Archived ${r.count.toLocaleString('en')} dead letter${r.count === 1 ? '' : 's'}.` };
  } catch (e) {
    return failure(e);
  }
}

/** Merge this cluster into another one (a lead's call). */
export async function mergeClusterAction(_: ClusterActionState, f: FormData): Promise<ClusterActionState> {
  try {
    const actor = await actionActor('clusters.merge');
    const r = await mergeClusters(actor, text(f, 'clusterId'), { into: text(f, 'into'), reason: text(f, 'reason') });
    refresh(r.clusterId, r.into);
    return { ok: `Merged: ${r.count.toLocaleString('en')} dead letter${r.count === 1 ? '' : 's'} moved.`, into: r.into };
  } catch (e) {
    return failure(e);
  }
}
