// POST /api/v1/dead-letters/bulk/preview — how many dead letters { decision: archive|discard, selection } would touch now
import { z } from 'zod';
import { authorize } from '@/lib/auth';
import { jsonRoute } from '@/lib/auth/guard';
import { DECISIONS, previewDecision, selectionSchema, DecisionPreview } from '@/lib/deadletters/decide';

const previewInput = z.object({ decision: z.enum(['archive', 'discard']), selection: selectionSchema });

export const POST = jsonRoute(
  'deadletters.read',
  async ({ actor, body: { decision, selection } }) => {
    authorize(actor, DECISIONS[decision].permission);
    return previewDecision(actor, decision, selection);
  },
  {
    summary: 'How many dead letters a bulk decision would touch now',
    tags: ['dead letters'],
    responses: { 200: { description: 'The count', view: DecisionPreview } },
    body: previewInput,
  },
);
