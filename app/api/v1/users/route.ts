// GET /api/v1/users — list users (admin)
// POST /api/v1/users — create a user (admin)
import { jsonRoute } from '@/lib/auth/guard';
import { createUser, listUserViews, userInput, UserListView, CreatedUserView } from '@/lib/admin/users';

export const GET = jsonRoute('admin.manage', () => listUserViews(), {
  summary: 'List users by e-mail (admin)',
  description: 'Password hashes are never included.',
  tags: ['admin'],
  responses: { 200: { description: 'The users', view: UserListView } },
});

export const POST = jsonRoute(
  'admin.manage',
  async ({ actor, body }) => {
    const u = await createUser(actor, body);
    return { id: u.id, email: u.email, role: u.role, teamId: u.teamId };
  },
  {
    summary: 'Create a user (admin)',
    description: 'Support and lead need a team (name or id). Without a password the user signs in through SSO only. Audited as user.create.',
    tags: ['admin'],
    responses: { 201: { description: 'Created', view: CreatedUserView } },
    errors: [400, 409],
    body: userInput,
  },
);
