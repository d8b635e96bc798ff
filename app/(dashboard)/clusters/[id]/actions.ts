'use server';
// Cluster server actions: the action client (guard, form, errors), then the same lib/ functions the
// JSON API calls.
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { action, form } from '@/lib/auth/action';
import { archiveCluster } from '@/lib/clustering/archive-cluster';
import { mergeClusters } from '@/lib/clustering/merge-clusters';

const plural = (n: number) => `${n.toLocaleString('en')} dead letter${n === 1 ? '' : 's'}`;

function refresh(...ids: string[]) {
  for (const id of ids) revalidatePath(`/clusters/${id}`);
  revalidatePath('/clusters');
  revalidatePath('/inbox');
}

/** Archive every open dead letter of this cluster in the user's sources, with a reason. */
export const archiveClusterAction = action(
  'deadletters.archive',
  z.object({ clusterId: form.text, reason: form.text }),
  async ({ clusterId, reason }, { actor }) => {
    const r = await archiveCluster(actor, clusterId, { reason });
    refresh(r.clusterId);
    return { message: `Archived ${plural(r.count)}.` };
  },
);

/** Merge this cluster into another one (a lead's call); `into`, the cluster that stayed, is where the page goes next. */
export const mergeClusterAction = action(
  'clusters.merge',
  z.object({ clusterId: form.text, into: form.text, reason: form.text }),
  async ({ clusterId, ...input }, { actor }) => {
    const r = await mergeClusters(actor, clusterId, input);
    refresh(r.clusterId, r.into);
    return { message: `Merged: ${plural(r.count)} moved.`, into: r.into };
  },
);
