import { z } from 'zod';
import { db } from '@/lib/db';
import { append } from '@/lib/audit';
import { auditActor, authorize, type Principal } from '@/lib/auth';
import { AppError } from '@/lib/errors';
import { systemClock, type Clock } from '@/lib/clock';

export const teamInput = z.object({ name: z.string().trim().min(1).max(100) });

export async function createTeam(actor: Principal, input: z.input<typeof teamInput>, clock: Clock = systemClock) {
  authorize(actor, 'admin.manage');
  const { name } = teamInput.parse(input);
  return db().$transaction(async (tx) => {
    if (await tx.team.findUnique({ where: { name } })) throw new AppError('conflict', `Team "${name}" already exists`);
    const team = await tx.team.create({ data: { name } });
    await append(tx, { actor: auditActor(actor), action: 'team.create', targetType: 'team', targetId: team.id, teamId: team.id, after: { name } }, clock);
    return team;
  });
}

export function listTeams() {
  return db().team.findMany({ orderBy: { name: 'asc' } });
}
