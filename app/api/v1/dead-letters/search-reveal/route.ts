// POST /api/v1/dead-letters/search-reveal — search inside masked values for a while, with { reason } (audited); answers the reveal id for ?reveal= on the list
import { jsonRoute } from '@/lib/auth/guard';
import { decisionInput } from '@/lib/deadletters/decide';
import { REVEAL_TTL_SECONDS, revealSearch, RevealView } from '@/lib/deadletters/reveal-payload';

export const POST = jsonRoute(
  'payload.reveal',
  async ({ actor, body }) => {
    const { eventId } = await revealSearch(actor, body.reason);
    return { revealId: eventId, expiresAt: new Date(Date.now() + REVEAL_TTL_SECONDS * 1000).toISOString() };
  },
  {
    summary: 'Search inside masked values for 15 minutes (payload.reveal; audited)',
    description:
      'Without it, `q` matches no masked value for any role (a match would tell whether a dead letter holds a value). The event records who, the reason and the team, never what is searched for. Matches are still shown masked.',
    tags: ['dead letters'],
    responses: { 201: { description: 'Granted for 15 minutes', view: RevealView } },
    body: decisionInput,
  },
);
