// GET /api/v1/users — list users (admin)
// POST /api/v1/users — create a user (admin)
import { api } from '@/lib/auth/guard';
import { createUser, listUserViews, userInput } from '@/lib/admin/users';

export const GET = api('admin.manage', {}, async () => {
  return Response.json(await listUserViews());
});

export const POST = api('admin.manage', { body: userInput }, async ({ actor, body }) => {
  const u = await createUser(actor, body);
  return Response.json({ id: u.id, email: u.email, role: u.role, teamId: u.teamId }, { status: 201 });
});
