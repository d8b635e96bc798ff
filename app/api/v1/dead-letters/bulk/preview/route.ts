// POST /api/v1/dead-letters/bulk/preview — how many dead letters { decision: archive|discard, selection } would touch now
import { z } from 'zod';
import { authorize } from '@/lib/auth';
import { api } from '@/lib/auth/guard';
import { DECISIONS, previewDecision, selectionSchema } from '@/lib/deadletters/decide';

const previewInput = z.object({ decision: z.enum(['archive', 'discard']), selection: selectionSchema });

export const POST = api('deadletters.read', { body: previewInput }, async ({ actor, body: { decision, selection } }) => {
  authorize(actor, DECISIONS[decision].permission);
  return Response.json(await previewDecision(actor, decision, selection));
});
