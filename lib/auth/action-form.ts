// The action client's pure half (lib/auth/action.ts has the guarded half): the one answer shape of
// every form, the one rule that reads a FormData, the field readers and the one error format. No
// server imports, so unit tests and client components can take it.
import { z, ZodError } from 'zod';
import { AppError } from '@/lib/errors';
import { assertStorableText } from '@/lib/text-input';

/** Before the first submit. */
export type ActionIdle = { ok?: undefined; error?: undefined };
export type ActionSuccess<T extends object = object> = T & { ok: true; message?: string; error?: undefined };
/** `field`: the path of the input the error is about, when it is about one. */
export type ActionFailure = { ok?: undefined; error: string; field?: string };
export type ActionState<T extends object = object> = ActionIdle | ActionSuccess<T> | ActionFailure;

/** What an action's body returns: the message shown and any data the form needs next. */
export type ActionReply<T extends object = object> = T & { message?: string };

export type FormFields = Record<string, string | string[]>;

/**
 * FormData → a plain object for the schema, by one rule: every text value trimmed (a blank field is
 * '' and still present, so "cleared" differs from "not in the form"); a name sent more than once
 * (ticked rows) becomes an array. Files are not read: no form here uploads one.
 */
export function formFields(form: FormData): FormFields {
  const out: FormFields = {};
  for (const key of new Set(form.keys())) {
    const values = form.getAll(key).filter((v): v is string => typeof v === 'string').map((v) => v.trim());
    if (values.length === 0) continue;
    out[key] = values.length === 1 ? values[0]! : values;
  }
  assertStorableText(out, 'form');
  return out;
}

/** Field readers for the schemas of forms; lib/ validates the values themselves. */
export const form = {
  /** The trimmed text, '' when blank or absent. */
  text: z.string().default(''),
  /** The trimmed text, undefined when blank or absent. */
  optional: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v)),
  /** A checkbox: ticked sends "on". */
  checkbox: z
    .string()
    .optional()
    .transform((v) => v === 'on'),
  /** A hidden or select "true" / "false". */
  flag: z
    .string()
    .optional()
    .transform((v) => v === 'true'),
  /** One of `values` (a select); blank or absent fails as lib/'s own enum would. */
  choice: <const V extends readonly [string, ...string[]]>(values: V) =>
    z
      .string()
      .optional()
      .transform((v) => (v === '' ? undefined : v))
      .pipe(z.enum(values)),
  /** One of `values`, undefined when blank or absent. */
  optionalChoice: <const V extends readonly [string, ...string[]]>(values: V) =>
    z
      .string()
      .optional()
      .transform((v) => (v === '' ? undefined : v))
      .pipe(z.enum(values).optional()),
  /** A name that may repeat (ticked rows): always a list. */
  many: z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(z.string())),
};

/** AppError → its message; ZodError → its first issue, the path as the field; anything else is rethrown. */
export function actionFailure(e: unknown): ActionFailure {
  if (e instanceof AppError) {
    const field = (e.details?.issues as { path?: string }[] | undefined)?.[0]?.path;
    return e.details?.where === 'form' && field ? { error: e.message, field } : { error: e.message };
  }
  if (e instanceof ZodError) {
    const issue = e.issues[0]!;
    const field = issue.path.join('.');
    return field ? { error: issue.message, field } : { error: issue.message };
  }
  // Next's redirect() and notFound() travel as exceptions: they must reach Next.
  throw e;
}
