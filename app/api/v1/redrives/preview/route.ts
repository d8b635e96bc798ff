// GET /api/v1/redrives/preview — what a redrive would cover before it starts: count, loops to skip, approval, active task
import { api } from '@/lib/auth/guard';
import { previewRedrive } from '@/lib/redrive';
import { selectionFromQuery } from '@/lib/redrive/http';

export const GET = api('deadletters.redrive', async (req, { actor }) => {
  return Response.json(await previewRedrive(actor, selectionFromQuery(new URL(req.url).searchParams)));
});
