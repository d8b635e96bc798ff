// The one client of the JSON API for the pages' client components (same origin, session cookie): it
// sends and reads JSON, and throws a refusal as an ApiError whose text names each field as the
// form labels it (components/field-label.ts).
import { apiErrorText, type ApiErrorBody } from '@/components/field-label';

export class ApiError extends Error {
  constructor(
    readonly body: ApiErrorBody | null,
    readonly status: number,
  ) {
    super(apiErrorText(body, status));
  }

  get details(): Record<string, unknown> | undefined {
    return this.body?.error?.details;
  }

  /** The message with each field named as `form` labels it. */
  textFor(form: HTMLFormElement | null): string {
    return apiErrorText(this.body, this.status, form);
  }
}

/** Call the JSON API: `body` is sent as JSON; the answer's JSON, or an ApiError. */
export async function apiCall<T>(path: string, init: { method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; body?: unknown } = {}): Promise<T> {
  const hasBody = init.body !== undefined;
  const res = await fetch(path, {
    method: init.method ?? (hasBody ? 'POST' : 'GET'),
    headers: { accept: 'application/json', ...(hasBody ? { 'content-type': 'application/json' } : {}) },
    ...(hasBody ? { body: JSON.stringify(init.body) } : {}),
  });
  const json = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) throw new ApiError(json as ApiErrorBody | null, res.status);
  return json as T;
}

/** What a form shows for a failed call: the refusal with its fields named by `form`, else the error's message. */
export function apiFailureText(e: unknown, form: HTMLFormElement | null): string {
  return e instanceof ApiError ? e.textFor(form) : e instanceof Error ? e.message : String(e);
}
