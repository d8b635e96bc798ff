// Building blocks of the OpenAPI document (document.ts): JSON Schema of zod schemas, the standard
// error answers, $refs to components.
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * JSON Schema (2020-12, OpenAPI 3.1's dialect) of what a client sends or gets: `output` for a
 * response view (objects then refuse unknown keys, so a field the view lacks fails the OpenAPI test).
 * A z.date() of a view is what Response.json writes of it: an ISO string.
 */
export function schemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      if (ctx.zodSchema._zod.def.type === 'date') Object.assign(ctx.jsonSchema, { type: 'string', format: 'date-time' });
    },
  }) as JsonSchema;
  return rest;
}

/** The OpenAPI schema of a response view (see lib/wire.ts). */
export const viewOf = (schema: z.ZodType): JsonSchema => schemaOf(schema, 'output');

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const jsonContent = (schema: JsonSchema) => ({ 'application/json': { schema } });

const ERROR_TEXT: Record<number, string> = {
  400: 'Malformed request (the message names what)',
  401: 'Missing or invalid credentials',
  403: 'Signed in, but without the permission',
  404: 'No such resource, or outside your team',
  409: 'The current state does not allow it',
  410: 'The payload was deleted (discarded or expired: the dead letter is a tombstone), or retention dropped the dead letter (error.details.tombstone: what is kept of it)',
  413: 'Too large (details.limit; for batches details.index and details.field)',
  415: 'Wrong Content-Type',
  422: 'Invalid input (details name the field, and for batches the item index)',
  503: 'Nothing was written: the database is unavailable, or Triage is over its write budget (details.reason "write_budget", a storm of writes). Send it again after Retry-After seconds; an ingest batch is idempotent: keep it unacknowledged on your broker until then.',
};

// The cue to wait and send again, on every 503.
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before sending it again', schema: { type: 'integer', minimum: 1 } } };

/** Standard error answers: `{ error: { code, message, details? } }`. */
export function errors(...statuses: number[]): Record<string, unknown> {
  return Object.fromEntries(
    statuses.map((s) => [
      String(s),
      { description: ERROR_TEXT[s] ?? 'Error', ...(s === 503 ? { headers: RETRY_AFTER } : {}), content: jsonContent(ref('Error')) },
    ]),
  );
}

export const errorSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' } },
    },
  },
};
