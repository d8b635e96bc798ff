// POST /api/v1/dead-letters/{id}/reveal — reveal a masked payload with { reason } (audited); answers the reveal id for ?reveal= on /payload
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { decisionInput } from '@/lib/deadletters/decide';
import { REVEAL_TTL_SECONDS, revealPayload, RevealView } from '@/lib/deadletters/reveal-payload';

export const POST = jsonRoute(
  'payload.reveal',
  async ({ actor, params, body }) => {
    const { eventId } = await revealPayload(actor, params.id, body.reason, 'download');
    return { revealId: eventId, expiresAt: new Date(Date.now() + REVEAL_TTL_SECONDS * 1000).toISOString() };
  },
  {
    summary: 'Reveal a masked payload (payload.reveal; audited)',
    tags: ['dead letters'],
    responses: { 201: { description: 'Revealed for 15 minutes', view: RevealView } },
    params: pathParams('id'),
    body: decisionInput,
  },
);
