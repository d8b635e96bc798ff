// GET /api/v1/redrives/preview — what a redrive would cover before it starts: count, loops to skip, approval, active task
import { api } from '@/lib/auth/guard';
import { previewRedrive } from '@/lib/redrive';
import { selectionQuery } from '@/lib/redrive/http';

export const GET = api('deadletters.redrive', { query: selectionQuery }, async ({ actor, query }) => {
  return Response.json(await previewRedrive(actor, query));
});
