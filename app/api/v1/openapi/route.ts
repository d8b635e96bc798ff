// GET /api/v1/openapi — the OpenAPI 3.1 document of the whole API (public: it describes, it grants nothing)
import { openApiDocument } from '@/lib/openapi/document';

export function GET(): Response {
  return Response.json(openApiDocument(), { headers: { 'Cache-Control': 'public, max-age=300' } });
}
