// GET /api/v1/dead-letters/{id}?reveal= — one dead letter: all metadata, sha256, payloadSize, status, failure history, decision; its text clear only with a reveal
import { z } from 'zod';
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { getDeadLetter, DeadLetterDetail } from '@/lib/deadletters/get-dead-letter';
import { activeReveal } from '@/lib/deadletters/reveal-payload';
import { droppedByRetentionAnswer } from '@/lib/deadletters/route-shapes';

const query = z.object({ reveal: z.string().optional().describe('A revealId from POST …/reveal: headers and error text clear') });

export const GET = jsonRoute(
  'deadletters.read',
  async ({ actor, params, query: { reveal } }) => {
    const clear = reveal !== undefined && (await activeReveal(actor, params.id, reveal));
    if (reveal !== undefined && !clear) {
      throw new AppError(
        'unprocessable',
        `No recent reveal ${reveal} of this dead letter by you: POST /api/v1/dead-letters/${params.id}/reveal with { "reason": … } first`,
        { field: 'reveal' },
      );
    }
    return getDeadLetter(actor, params.id, { clear });
  },
  {
    summary: 'One dead letter: all metadata, sha256, payloadSize, status, failure history, decision',
    description:
      "Headers, error text and decision reasons are masked (e-mails, IBANs, card numbers) for every role, as on the page, unless `reveal` names a recent reveal of yours (422 when it does not). A dead letter whose month retention dropped answers 410 with its tombstone (status, source, when it died, when it was dropped); another team's id answers 404 either way.",
    tags: ['dead letters'],
    responses: {
      200: { description: 'The dead letter', view: DeadLetterDetail },
      410: droppedByRetentionAnswer,
    },
    params: pathParams('id'),
    query,
  },
);
