// POST /api/v1/clusters/{id}/unmerge — undo the merge of this cluster into another, { reason } (lead, admin); both restored with their counts; audited
import { jsonRoute } from '@/lib/auth/guard';
import { oneClusterRoute } from '@/lib/clustering/route-shapes';
import { undoMerge, undoMergeInput, UndoneMerge } from '@/lib/clustering/undo-merge';

export const POST = jsonRoute('clusters.split', ({ actor, params, body }) => undoMerge(actor, params.id, body), {
  ...oneClusterRoute,
  summary: 'Undo the merge of this cluster into another (lead, admin)',
  description: 'Both clusters are restored with their counts; members that arrived since the merge go back by fingerprint. Audited.',
  responses: { 200: { description: 'Undone', view: UndoneMerge } },
  errors: [409],
  body: undoMergeInput,
  maxBytes: 16 * 1024,
});
