// GET /api/v1/clusters/{id}/merge-suggestions — clusters whose templates differ from this one only in positions proven variable elsewhere (lead, admin)
import { api, pathParams } from '@/lib/auth/guard';
import { mergeSuggestions } from '@/lib/clustering/merge-suggestions';

export const GET = api('clusters.merge', { params: pathParams('id') }, async ({ actor, params }) => {
  return Response.json({ suggestions: await mergeSuggestions(actor, params.id) });
});
