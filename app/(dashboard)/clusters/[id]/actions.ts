'use server';
// Cluster server actions: the action client (guard, form, errors), then the same lib/ functions the
// JSON API calls.
import { z } from 'zod';
import { action, form } from '@/lib/auth/action';
import { archiveCluster } from '@/lib/clustering/archive-cluster';
import { mergeClusters } from '@/lib/clustering/merge-clusters';
import { deadLetterCount } from '@/lib/deadletters/count-label';
import { refreshClusters } from './refresh';

/** Archive every open dead letter of this cluster in the user's sources, with a reason. */
export const archiveClusterAction = action(
  'deadletters.archive',
  z.object({ clusterId: form.text, reason: form.text }),
  async ({ clusterId, reason }, { actor }) => {
    const r = await archiveCluster(actor, clusterId, { reason });
    refreshClusters(r.clusterId);
    return { message: `Archived ${deadLetterCount(r.count)}.` };
  },
);

/** Merge this cluster into another one (a lead's call); `into`, the cluster that stayed, is where the page goes next. */
export const mergeClusterAction = action(
  'clusters.merge',
  z.object({ clusterId: form.text, into: form.text, reason: form.text }),
  async ({ clusterId, ...input }, { actor }) => {
    const r = await mergeClusters(actor, clusterId, input);
    refreshClusters(r.clusterId, r.into);
    return { message: `Merged: ${deadLetterCount(r.count)} moved.`, into: r.into };
  },
);
