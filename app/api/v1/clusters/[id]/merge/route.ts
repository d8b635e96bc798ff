// POST /api/v1/clusters/{id}/merge — merge the cluster into another, { into, reason } (lead, admin); kept as an alias, audited
import { jsonRoute } from '@/lib/auth/guard';
import { oneClusterRoute } from '@/lib/clustering/route-shapes';
import { mergeClusterInput, mergeClusters, ClusterMerge } from '@/lib/clustering/merge-clusters';

export const POST = jsonRoute('clusters.merge', ({ actor, params, body }) => mergeClusters(actor, params.id, body), {
  ...oneClusterRoute,
  summary: 'Merge the cluster into another (lead, admin)',
  description: 'The cluster stays as an alias: its members and counts move, and new arrivals with its fingerprint count into `into`. Audited.',
  responses: { 200: { description: 'Merged', view: ClusterMerge } },
  errors: [409],
  body: mergeClusterInput,
});
