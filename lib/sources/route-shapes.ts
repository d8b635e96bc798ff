// HTTP shapes of the routes of one source's settings (its policy, grouping rules and redrive rules,
// under /api/v1/sources/:source): what each of their specs (lib/auth/guard.ts RouteSpec) would
// otherwise repeat. Each adds its summary, answers and body.
import { z } from 'zod';

/** A read of one of the source's settings: tagged sources, the source named by the path. */
export const sourceSettingRoute = { tags: ['sources'], params: z.object({ source: z.string() }) };

/** A change to one of them: a small JSON body, 400 for a value the source refuses. */
export const sourceSettingChange = { ...sourceSettingRoute, errors: [400], maxBytes: 16 * 1024 };
