// GET /api/v1/redrives/preview — what a redrive would cover before it starts: count, loops to skip, approval, active task
import { jsonRoute } from '@/lib/auth/guard';
import { previewRedrive, RedrivePreview } from '@/lib/redrive';
import { redrivePreviewRoute, selectionQuery } from '@/lib/redrive/route-shapes';

export const GET = jsonRoute('deadletters.redrive', ({ actor, query }) => previewRedrive(actor, query), {
  ...redrivePreviewRoute,
  summary: 'What a redrive would cover, before it starts',
  responses: { 200: { description: 'The preview', view: RedrivePreview } },
  query: selectionQuery,
});
