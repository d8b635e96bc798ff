// OpenAPI: administration — users (admin only; session cookie or personal API token).
// Response bodies are the views of lib/admin/users.ts (docs/style.md "Views").
import { CreatedUserView, UserListView, UserView, userInput } from '@/lib/admin/users';
import { errors, jsonContent, ref, schemaOf, viewOf, type OpenApiArea } from './area';

const security = [{ apiToken: [] }, { session: [] }];

export const adminArea: OpenApiArea = {
  tag: { name: 'admin', description: 'Users and their roles (support, lead, auditor, admin). Admins only; every change is audited.' },
  schemas: { User: viewOf(UserView), UserList: viewOf(UserListView) },
  paths: {
    '/api/v1/users': {
      get: {
        tags: ['admin'],
        summary: 'List users by e-mail (admin)',
        description: 'Password hashes are never included.',
        security,
        responses: {
          '200': { description: 'The users', content: jsonContent(ref('UserList')) },
          ...errors(401, 403),
        },
      },
      post: {
        tags: ['admin'],
        summary: 'Create a user (admin)',
        description: 'Support and lead need a team (name or id). Without a password the user signs in through SSO only. Audited as user.create.',
        security,
        requestBody: { required: true, content: jsonContent(schemaOf(userInput)) },
        responses: { '201': { description: 'Created', content: jsonContent(viewOf(CreatedUserView)) }, ...errors(400, 401, 403, 409, 413, 415, 422) },
      },
    },
  },
};
