// HTTP shapes of the routes of one cluster (/api/v1/clusters/:id and its commands: merge, unmerge,
// split, archive): what each of their specs (lib/auth/guard.ts RouteSpec) would otherwise repeat.
import { z } from 'zod';

/** A route of one cluster: tagged clusters, the cluster's id from the path. Each adds its words, answers and body. */
export const oneClusterRoute = { tags: ['clusters'], params: z.object({ id: z.string() }) };
