// Saved views: a page's filters under a name, private or shared with the owner's team (lib/views).
// Response bodies are the views of lib/views/saved-views.ts (docs/style.md "Views").
import { OneSavedView, SavedViewListView, SavedViewView, createViewInput, updateViewInput } from '@/lib/views/saved-views';
import { VIEW_PAGES } from '@/lib/views/pages';
import { errors, idParam, jsonContent, ref, schemaOf, viewOf, type OpenApiArea } from './area';

const security = [{ apiToken: [] }, { session: [] }];
const id = idParam('id', 'View id');
const seen = 'Only views the caller sees: their own and those shared with their team; any other id answers 404.';

export const viewsArea: OpenApiArea = {
  tag: { name: 'views', description: `Saved views of the dead-letter list, the inbox and the audit trail. ${seen}` },
  schemas: { SavedView: viewOf(SavedViewView), SavedViewList: viewOf(SavedViewListView), OneSavedView: viewOf(OneSavedView) },
  paths: {
    '/api/v1/views': {
      get: {
        tags: ['views'],
        summary: 'The caller\'s views, then those shared with their team',
        security,
        parameters: [{ name: 'page', in: 'query', required: false, schema: { type: 'string', enum: [...VIEW_PAGES] } }],
        responses: { '200': { description: 'Views', content: jsonContent(ref('SavedViewList')) }, ...errors(401, 403, 422) },
      },
      post: {
        tags: ['views'],
        summary: 'Save a view (views.manage; audited view.create)',
        description:
          "The filters are parsed by the page's own filter schema: an unknown filter or a bad value is a 422 naming it. A view of the audit trail needs audit.read. shared: true shares it with the caller's team (a caller without a team: 403). A name is unique per user and page (409).",
        security,
        requestBody: { required: true, content: jsonContent(schemaOf(createViewInput)) },
        responses: { '201': { description: 'The view', content: jsonContent(ref('OneSavedView')) }, ...errors(401, 403, 409, 413, 415, 422) },
      },
    },
    '/api/v1/views/{id}': {
      get: {
        tags: ['views'],
        summary: 'One view',
        description: seen,
        security,
        parameters: [id],
        responses: { '200': { description: 'The view', content: jsonContent(ref('OneSavedView')) }, ...errors(401, 403, 404) },
      },
      patch: {
        tags: ['views'],
        summary: 'Rename, re-filter, share or unshare one\'s own view (audited view.update)',
        description: 'A teammate\'s shared view: 403 (only its owner changes it).',
        security,
        parameters: [id],
        requestBody: { required: true, content: jsonContent(schemaOf(updateViewInput)) },
        responses: { '200': { description: 'The view now', content: jsonContent(ref('OneSavedView')) }, ...errors(401, 403, 404, 409, 413, 415, 422) },
      },
      delete: {
        tags: ['views'],
        summary: 'Delete one\'s own view (audited view.delete)',
        security,
        parameters: [id],
        responses: { '204': { description: 'Deleted' }, ...errors(401, 403, 404) },
      },
    },
  },
};
