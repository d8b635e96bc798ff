// GET /api/v1/dead-letters/{id}?reveal= — one dead letter: all metadata, sha256, payloadSize, status, failure history, decision; its text clear only with a reveal
import { z } from 'zod';
import { api, pathParams } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { getDeadLetter } from '@/lib/deadletters/get-dead-letter';
import { activeReveal } from '@/lib/deadletters/reveal-payload';

const query = z.object({ reveal: z.string().optional().describe('A revealId from POST …/reveal: headers and error text clear') });

export const GET = api('deadletters.read', { params: pathParams('id'), query }, async ({ actor, params, query: { reveal } }) => {
  const clear = reveal !== undefined && (await activeReveal(actor, params.id, reveal));
  if (reveal !== undefined && !clear) {
    throw new AppError('unprocessable', `No recent reveal ${reveal} of this dead letter by you: POST /api/v1/dead-letters/${params.id}/reveal with { "reason": … } first`, { field: 'reveal' });
  }
  return Response.json(await getDeadLetter(actor, params.id, { clear }));
});
