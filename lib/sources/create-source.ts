import { z } from 'zod';
import { db } from '@/lib/db';
import { append } from '@/lib/audit';
import { auditActor, authorize, type Principal } from '@/lib/auth';
import { AppError, unprocessable } from '@/lib/errors';
import { systemClock, type Clock } from '@/lib/clock';

export const sourceInput = z.object({
  // Source names become BullMQ queue names and URL segments: keep them plain.
  name: z.string().trim().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'lowercase letters, digits, ".", "_" or "-", at most 63'),
  team: z.string().trim().min(1),
  kind: z.enum(['builtin', 'ingest']).default('builtin'),
  description: z.string().max(500).optional(),
  maxReceives: z.number().int().min(1).max(1000).optional(),
  visibilityTimeoutMs: z.number().int().min(1000).max(12 * 3600_000).optional(),
  backoffBaseMs: z.number().int().min(1).max(3600_000).optional(),
  maxRedrives: z.number().int().min(0).max(100).optional(),
  orderMode: z.enum(['none', 'key']).optional(),
});

export async function createSource(actor: Principal, input: z.input<typeof sourceInput>, clock: Clock = systemClock) {
  authorize(actor, 'admin.manage');
  const { team, ...data } = sourceInput.parse(input);
  return db().$transaction(async (tx) => {
    const t = await tx.team.findFirst({ where: /^[0-9a-f-]{36}$/i.test(team) ? { OR: [{ id: team }, { name: team }] } : { name: team } });
    if (!t) throw unprocessable(`No team "${team}"`, { field: 'team' });
    if (await tx.source.findUnique({ where: { name: data.name } })) throw new AppError('conflict', `Source "${data.name}" already exists`);
    const source = await tx.source.create({ data: { ...data, teamId: t.id } });
    await append(tx, { actor: auditActor(actor), action: 'source.create', targetType: 'source', targetId: source.id, sourceId: source.id, teamId: t.id, after: { name: source.name, team: t.name, kind: source.kind } }, clock);
    return source;
  });
}
