// POST /api/v1/clusters/{id}/unmerge — undo the merge of this cluster into another, { reason } (lead, admin); both restored with their counts; audited
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { undoMerge, type UndoMergeInput } from '@/lib/clustering/undo-merge';

export const POST = api<{ id: string }>('clusters.split', async (req, { actor, params }) => {
  return Response.json(await undoMerge(actor, params.id, (await readJsonBody(req, 16 * 1024)) as UndoMergeInput));
});
