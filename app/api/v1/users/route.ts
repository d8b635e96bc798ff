// GET /api/v1/users — list users (admin)
// POST /api/v1/users — create a user (admin)
import { api } from '@/lib/auth/guard';
import { createUser, listUserViews } from '@/lib/admin/users';
import { readJsonBody } from '@/lib/http';

export const GET = api('admin.manage', async () => {
  return Response.json(await listUserViews());
});

export const POST = api('admin.manage', async (req, { actor }) => {
  const u = await createUser(actor, (await readJsonBody(req)) as never);
  return Response.json({ id: u.id, email: u.email, role: u.role, teamId: u.teamId }, { status: 201 });
});
