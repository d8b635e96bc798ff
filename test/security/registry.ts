// The matrix's routes in vitest: the API's one registry (lib/openapi/routes.ts) joined with how to
// call each (endpoints.ts), each with its handler to call in process. The browser suite reads the
// same registry from the served OpenAPI document, since route modules load only under Next or vitest.
import { registryEntries } from '@/lib/openapi/routes';
import { routeEntries, type RouteEntry } from './endpoints';

export type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
export type Route = RouteEntry & { handler: Handler };

export const ROUTES: Route[] = routeEntries(
  registryEntries().map(({ method, path, permission, handler }) => ({ method, path, permission, handler: handler as Handler })),
);
