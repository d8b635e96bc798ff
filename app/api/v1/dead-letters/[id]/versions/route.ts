// GET /api/v1/dead-letters/{id}/versions — the dead letter's edited copies: version, SHA-256, size, diff, tasks
import { api } from '@/lib/auth/guard';
import { listDeadLetterVersions } from '@/lib/redrive/edit';

export const GET = api<{ id: string }>('deadletters.read', async (_req, { actor, params }) => Response.json({ versions: await listDeadLetterVersions(actor, params.id) }));
