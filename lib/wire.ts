// Building blocks of the response views (docs/style.md "Views"), and of the inputs that change one.
// A view is a zod schema next to the lib function that builds it; its type is z.infer of it, and the
// OpenAPI document is generated from it (route specs name their views; lib/openapi/document.ts), so
// what a route answers and what the document says are one text.
import { z } from 'zod';

/** A time the lib function already formats (toISOString). */
export const isoTime = z.iso.datetime();

/** A Date the lib function returns as it is: Response.json writes it as an ISO string (the document says so). */
export const dateTime = z.date();

/**
 * A PATCH body whose fields are all optional must still change something: an empty one is refused
 * (422, "nothing to change") rather than written as a change, audited, of nothing.
 */
export function changingSomething<T extends z.ZodType<Record<string, unknown>>>(schema: T) {
  return schema.refine((v) => Object.values(v).some((x) => x !== undefined), 'nothing to change');
}

/** A list answer: the views under one plural key (`{ users: [...] }`), as the list routes answer. */
export function listOf<K extends string, V extends z.ZodType>(key: K, view: V) {
  return z.object({ [key]: z.array(view) } as { [P in K]: z.ZodArray<V> });
}
