// POST /api/v1/clusters/{id}/split — split the cluster by { by, reason } (lead, admin): the largest part keeps the id; audited
import { jsonRoute } from '@/lib/auth/guard';
import { oneClusterRoute } from '@/lib/clustering/route-shapes';
import { splitCluster, splitClusterInput, SplitPreview } from '@/lib/clustering/split-cluster';

export const POST = jsonRoute('clusters.split', ({ actor, params, body }) => splitCluster(actor, params.id, body), {
  ...oneClusterRoute,
  summary: 'Split the cluster by a field: error type, top frame, a header or a JSON path of the payload (lead, admin)',
  description:
    "The largest part keeps the cluster's id; the other parts are new clusters linking back to it (splitFromId). Members change cluster only, with their counts; new arrivals stay split: one with a split-off value counts into its part, any other value into the cluster that kept the id. At most 50,000 members and 50 parts. Audited with the counts before and after.",
  responses: { 200: { description: 'Split', view: SplitPreview } },
  body: splitClusterInput,
  maxBytes: 16 * 1024,
});
