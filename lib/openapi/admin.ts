// OpenAPI: administration — users (admin only; session cookie or personal API token).
import { z } from 'zod';
import { ROLES } from '@/lib/auth/permissions';
import { userInput } from '@/lib/admin/users';
import { errors, jsonContent, ref, schemaOf, type OpenApiArea } from './area';

const security = [{ apiToken: [] }, { session: [] }];
const ts = z.iso.datetime();
const role = z.enum(ROLES);

const user = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string().nullable(),
  role,
  teamId: z.uuid().nullable(),
  team: z.string().nullable().describe("The team's name; auditors and admins may have none"),
  disabled: z.boolean(),
  createdAt: ts,
  updatedAt: ts,
});

const created = z.object({ id: z.uuid(), email: z.string(), role, teamId: z.uuid().nullable() });

export const adminArea: OpenApiArea = {
  tag: { name: 'admin', description: 'Users and their roles (support, lead, auditor, admin). Admins only; every change is audited.' },
  schemas: { User: schemaOf(user, 'output') },
  paths: {
    '/api/v1/users': {
      get: {
        tags: ['admin'],
        summary: 'List users by e-mail (admin)',
        description: 'Password hashes are never included.',
        security,
        responses: {
          '200': { description: 'The users', content: jsonContent({ type: 'object', required: ['users'], properties: { users: { type: 'array', items: ref('User') } } }) },
          ...errors(401, 403),
        },
      },
      post: {
        tags: ['admin'],
        summary: 'Create a user (admin)',
        description: 'Support and lead need a team (name or id). Without a password the user signs in through SSO only. Audited as user.create.',
        security,
        requestBody: { required: true, content: jsonContent(schemaOf(userInput)) },
        responses: { '201': { description: 'Created', content: jsonContent(schemaOf(created, 'output')) }, ...errors(400, 401, 403, 409, 413, 415, 422) },
      },
    },
  },
};
