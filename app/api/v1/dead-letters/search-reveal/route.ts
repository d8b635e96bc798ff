// POST /api/v1/dead-letters/search-reveal — search inside masked values for a while, with { reason } (audited); answers the reveal id for ?reveal= on the list
import { api } from '@/lib/auth/guard';
import { decisionInput } from '@/lib/deadletters/decide';
import { REVEAL_TTL_SECONDS, revealSearch } from '@/lib/deadletters/reveal-payload';

export const POST = api('payload.reveal', { body: decisionInput }, async ({ actor, body }) => {
  const { eventId } = await revealSearch(actor, body.reason);
  return Response.json({ revealId: eventId, expiresAt: new Date(Date.now() + REVEAL_TTL_SECONDS * 1000).toISOString() }, { status: 201 });
});
