// GET /api/v1/dead-letters/{id}/payload — the exact payload bytes, as an attachment; a masked payload needs ?reveal= with the id of a reveal POSTed to /reveal
import { api } from '@/lib/auth/guard';
import { AppError, forbidden } from '@/lib/errors';
import { canReveal } from '@/lib/masking';
import { getDeadLetterPayload, maskedView } from '@/lib/deadletters/get-dead-letter';
import { gone, payloadResponse } from '@/lib/deadletters/http';
import { activeReveal } from '@/lib/deadletters/reveal-payload';

export const GET = api<{ id: string }>('deadletters.read', async (req, { actor, params }) => {
  const url = new URL(req.url);
  const p = await getDeadLetterPayload(actor, params.id);
  if (!p.payload) return gone(`The payload was deleted (${p.status}); the dead letter is kept as a tombstone`);
  // Sensitive paths, the sensitive flag or a detected card number, IBAN or e-mail: the exact bytes
  // are a reveal, which needs the permission and leaves an audit event. The reveal is a POST (with
  // the Origin check for a cookie): a GET, which a cross-site link or image can send, never writes one.
  if (maskedView({ ...p, payload: p.payload }).state !== 'clear') {
    if (!canReveal(actor)) throw forbidden('This payload holds sensitive values: its exact bytes need the payload.reveal permission');
    if (!(await activeReveal(actor, params.id, url.searchParams.get('reveal') ?? undefined))) {
      throw new AppError(
        'unprocessable',
        `This payload holds sensitive values: POST /api/v1/dead-letters/${params.id}/reveal with { "reason": … } (recorded on the audit trail), then download with ?reveal= and its revealId`,
        { field: 'reveal' },
      );
    }
  }
  return payloadResponse(p.id, p.payload, p.contentType, p.sha256);
});
