// The registry of the JSON API: every route file whose handlers are made by api() (lib/auth/guard.ts),
// by its path. Each handler carries its spec (summary, tag, schemas, answers), so this one line a file
// is all the OpenAPI document (document.ts) and the security suite (test/security) need to find
// them; a test compares it with the app/api tree. Routes not made by api() are in static.ts.
import type { RouteHandler } from '@/lib/auth/guard';
import * as metrics from '@/app/api/metrics/route';
import * as auditBreaksIdAcknowledge from '@/app/api/v1/audit/breaks/[id]/acknowledge/route';
import * as auditExport from '@/app/api/v1/audit/export/route';
import * as auditVerify from '@/app/api/v1/audit/verify/route';
import * as clustersIdArchive from '@/app/api/v1/clusters/[id]/archive/route';
import * as clustersIdMergeSuggestions from '@/app/api/v1/clusters/[id]/merge-suggestions/route';
import * as clustersIdMerge from '@/app/api/v1/clusters/[id]/merge/route';
import * as clustersIdNotes from '@/app/api/v1/clusters/[id]/notes/route';
import * as clustersIdOwnership from '@/app/api/v1/clusters/[id]/ownership/route';
import * as clustersId from '@/app/api/v1/clusters/[id]/route';
import * as clustersIdSplitPreview from '@/app/api/v1/clusters/[id]/split/preview/route';
import * as clustersIdSplit from '@/app/api/v1/clusters/[id]/split/route';
import * as clustersIdUnmerge from '@/app/api/v1/clusters/[id]/unmerge/route';
import * as clusters from '@/app/api/v1/clusters/route';
import * as deadLettersIdArchive from '@/app/api/v1/dead-letters/[id]/archive/route';
import * as deadLettersIdDiscard from '@/app/api/v1/dead-letters/[id]/discard/route';
import * as deadLettersIdEdit from '@/app/api/v1/dead-letters/[id]/edit/route';
import * as deadLettersIdPayload from '@/app/api/v1/dead-letters/[id]/payload/route';
import * as deadLettersIdReveal from '@/app/api/v1/dead-letters/[id]/reveal/route';
import * as deadLettersId from '@/app/api/v1/dead-letters/[id]/route';
import * as deadLettersIdVersionsVersionPayload from '@/app/api/v1/dead-letters/[id]/versions/[version]/payload/route';
import * as deadLettersIdVersions from '@/app/api/v1/dead-letters/[id]/versions/route';
import * as deadLettersBulkArchive from '@/app/api/v1/dead-letters/bulk/archive/route';
import * as deadLettersBulkDiscard from '@/app/api/v1/dead-letters/bulk/discard/route';
import * as deadLettersBulkPreview from '@/app/api/v1/dead-letters/bulk/preview/route';
import * as deadLettersExport from '@/app/api/v1/dead-letters/export/route';
import * as deadLetters from '@/app/api/v1/dead-letters/route';
import * as deadLettersSearchReveal from '@/app/api/v1/dead-letters/search-reveal/route';
import * as redrivesIdApprove from '@/app/api/v1/redrives/[id]/approve/route';
import * as redrivesIdCancel from '@/app/api/v1/redrives/[id]/cancel/route';
import * as redrivesIdPause from '@/app/api/v1/redrives/[id]/pause/route';
import * as redrivesIdResume from '@/app/api/v1/redrives/[id]/resume/route';
import * as redrivesId from '@/app/api/v1/redrives/[id]/route';
import * as redrivesIdSeries from '@/app/api/v1/redrives/[id]/series/route';
import * as redrivesPreview from '@/app/api/v1/redrives/preview/route';
import * as redrives from '@/app/api/v1/redrives/route';
import * as redrivesTransformPreview from '@/app/api/v1/redrives/transform/preview/route';
import * as redrivesTransform from '@/app/api/v1/redrives/transform/route';
import * as sourcesSourceAlarms from '@/app/api/v1/sources/[source]/alarms/route';
import * as sourcesSourceConnectionTest from '@/app/api/v1/sources/[source]/connection-test/route';
import * as sourcesSourceDeadLettersRaw from '@/app/api/v1/sources/[source]/dead-letters/raw/route';
import * as sourcesSourceDeadLetters from '@/app/api/v1/sources/[source]/dead-letters/route';
import * as sourcesSourceGroupingRulesReapply from '@/app/api/v1/sources/[source]/grouping-rules/reapply/route';
import * as sourcesSourceGroupingRules from '@/app/api/v1/sources/[source]/grouping-rules/route';
import * as sourcesSourceImportPause from '@/app/api/v1/sources/[source]/import/pause/route';
import * as sourcesSourceImportResume from '@/app/api/v1/sources/[source]/import/resume/route';
import * as sourcesSourcePolicy from '@/app/api/v1/sources/[source]/policy/route';
import * as sourcesSourceRedriveRulesRule from '@/app/api/v1/sources/[source]/redrive-rules/[rule]/route';
import * as sourcesSourceRedriveRules from '@/app/api/v1/sources/[source]/redrive-rules/route';
import * as sourcesSource from '@/app/api/v1/sources/[source]/route';
import * as sources from '@/app/api/v1/sources/route';
import * as users from '@/app/api/v1/users/route';
import * as viewsId from '@/app/api/v1/views/[id]/route';
import * as views from '@/app/api/v1/views/route';
import * as webhooksIdDeliveries from '@/app/api/v1/webhooks/[id]/deliveries/route';
import * as webhooksId from '@/app/api/v1/webhooks/[id]/route';
import * as webhooksIdTest from '@/app/api/v1/webhooks/[id]/test/route';
import * as webhooks from '@/app/api/v1/webhooks/route';

export type RouteModule = Partial<Record<string, unknown>>;

/** Path template (as under app/: [id] → :id) → the route file's module. */
export const ROUTE_FILES: Record<string, RouteModule> = {
  '/api/metrics': metrics,
  '/api/v1/audit/breaks/:id/acknowledge': auditBreaksIdAcknowledge,
  '/api/v1/audit/export': auditExport,
  '/api/v1/audit/verify': auditVerify,
  '/api/v1/clusters/:id/archive': clustersIdArchive,
  '/api/v1/clusters/:id/merge-suggestions': clustersIdMergeSuggestions,
  '/api/v1/clusters/:id/merge': clustersIdMerge,
  '/api/v1/clusters/:id/notes': clustersIdNotes,
  '/api/v1/clusters/:id/ownership': clustersIdOwnership,
  '/api/v1/clusters/:id': clustersId,
  '/api/v1/clusters/:id/split/preview': clustersIdSplitPreview,
  '/api/v1/clusters/:id/split': clustersIdSplit,
  '/api/v1/clusters/:id/unmerge': clustersIdUnmerge,
  '/api/v1/clusters': clusters,
  '/api/v1/dead-letters/:id/archive': deadLettersIdArchive,
  '/api/v1/dead-letters/:id/discard': deadLettersIdDiscard,
  '/api/v1/dead-letters/:id/edit': deadLettersIdEdit,
  '/api/v1/dead-letters/:id/payload': deadLettersIdPayload,
  '/api/v1/dead-letters/:id/reveal': deadLettersIdReveal,
  '/api/v1/dead-letters/:id': deadLettersId,
  '/api/v1/dead-letters/:id/versions/:version/payload': deadLettersIdVersionsVersionPayload,
  '/api/v1/dead-letters/:id/versions': deadLettersIdVersions,
  '/api/v1/dead-letters/bulk/archive': deadLettersBulkArchive,
  '/api/v1/dead-letters/bulk/discard': deadLettersBulkDiscard,
  '/api/v1/dead-letters/bulk/preview': deadLettersBulkPreview,
  '/api/v1/dead-letters/export': deadLettersExport,
  '/api/v1/dead-letters': deadLetters,
  '/api/v1/dead-letters/search-reveal': deadLettersSearchReveal,
  '/api/v1/redrives/:id/approve': redrivesIdApprove,
  '/api/v1/redrives/:id/cancel': redrivesIdCancel,
  '/api/v1/redrives/:id/pause': redrivesIdPause,
  '/api/v1/redrives/:id/resume': redrivesIdResume,
  '/api/v1/redrives/:id': redrivesId,
  '/api/v1/redrives/:id/series': redrivesIdSeries,
  '/api/v1/redrives/preview': redrivesPreview,
  '/api/v1/redrives': redrives,
  '/api/v1/redrives/transform/preview': redrivesTransformPreview,
  '/api/v1/redrives/transform': redrivesTransform,
  '/api/v1/sources/:source/alarms': sourcesSourceAlarms,
  '/api/v1/sources/:source/connection-test': sourcesSourceConnectionTest,
  '/api/v1/sources/:source/dead-letters/raw': sourcesSourceDeadLettersRaw,
  '/api/v1/sources/:source/dead-letters': sourcesSourceDeadLetters,
  '/api/v1/sources/:source/grouping-rules/reapply': sourcesSourceGroupingRulesReapply,
  '/api/v1/sources/:source/grouping-rules': sourcesSourceGroupingRules,
  '/api/v1/sources/:source/import/pause': sourcesSourceImportPause,
  '/api/v1/sources/:source/import/resume': sourcesSourceImportResume,
  '/api/v1/sources/:source/policy': sourcesSourcePolicy,
  '/api/v1/sources/:source/redrive-rules/:rule': sourcesSourceRedriveRulesRule,
  '/api/v1/sources/:source/redrive-rules': sourcesSourceRedriveRules,
  '/api/v1/sources/:source': sourcesSource,
  '/api/v1/sources': sources,
  '/api/v1/users': users,
  '/api/v1/views/:id': viewsId,
  '/api/v1/views': views,
  '/api/v1/webhooks/:id/deliveries': webhooksIdDeliveries,
  '/api/v1/webhooks/:id': webhooksId,
  '/api/v1/webhooks/:id/test': webhooksIdTest,
  '/api/v1/webhooks': webhooks,
};

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** One operation of the registry: a method of a route file, with what api() was given. */
export interface RegistryEntry {
  method: HttpMethod;
  path: string;
  handler: RouteHandler;
  permission: RouteHandler['route']['permission'];
  spec: RouteHandler['route']['spec'];
}

const isRouteHandler = (v: unknown): v is RouteHandler => typeof v === 'function' && 'route' in v;

/** Every operation of the registry, in file order. A method exported without api() fails loudly. */
export function registryEntries(): RegistryEntry[] {
  return Object.entries(ROUTE_FILES).flatMap(([path, mod]) =>
    HTTP_METHODS.filter((m) => mod[m] !== undefined).map((method) => {
      const handler = mod[method];
      if (!isRouteHandler(handler)) throw new Error(`${method} ${path}: not made by api() (lib/auth/guard.ts), so it has no spec`);
      return { method, path, handler, permission: handler.route.permission, spec: handler.route.spec };
    }),
  );
}
