// GET /api/v1/clusters/{id}/merge-suggestions — clusters whose templates differ from this one only in positions proven variable elsewhere (lead, admin)
import { jsonRoute } from '@/lib/auth/guard';
import { oneClusterRoute } from '@/lib/clustering/route-shapes';
import { mergeSuggestions, MergeSuggestionsView } from '@/lib/clustering/merge-suggestions';

export const GET = jsonRoute('clusters.merge', async ({ actor, params }) => ({ suggestions: await mergeSuggestions(actor, params.id) }), {
  ...oneClusterRoute,
  summary: 'Clusters of the same error type and frame whose templates differ only in positions proven variable elsewhere (lead, admin)',
  responses: { 200: { description: 'Suggestions', view: MergeSuggestionsView } },
});
