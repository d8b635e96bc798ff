// GET /api/v1/openapi.json — the OpenAPI document under the file name tools look for
export { GET } from '../openapi/route';
