// GET /api/v1/users — list users (admin)
// POST /api/v1/users — create a user (admin)
import { api } from '@/lib/auth/guard';
import { createUser, listUsers, userInput } from '@/lib/admin/users';

export const GET = api('admin.manage', {}, async () => {
  const users = await listUsers();
  return Response.json({ users: users.map(({ passwordHash: _p, ...u }) => ({ ...u, team: u.team?.name ?? null })) });
});

export const POST = api('admin.manage', { body: userInput }, async ({ actor, body }) => {
  const u = await createUser(actor, body);
  return Response.json({ id: u.id, email: u.email, role: u.role, teamId: u.teamId }, { status: 201 });
});
