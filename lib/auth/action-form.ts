// The action client's pure half (lib/auth/action.ts has the guarded half): the one answer shape of
// every form, the one rule that reads a FormData, the field readers and the one error format. No
// server imports, so unit tests and client components can take it.
import { z, ZodError } from 'zod';
import { AppError } from '@/lib/errors';
import { fieldWords, issuePredicate, plainIssue, sentence, valueAt } from '@/lib/plain-issues';
import { assertStorableText } from '@/lib/text-input';

/** Before the first submit. */
export type ActionIdle = { ok?: undefined; error?: undefined; fields?: undefined };
export type ActionSuccess<T extends object = object> = T & { ok: true; message?: string; error?: undefined };
/**
 * `error`: one plain sentence for the whole answer, a field named in words. `field`: the name of the
 * input it is about, when it is about one. `fields`: what is wrong with each named input, as the rest
 * of a sentence ("can be at most 1,000 characters; this one has 10,000"), for the form to say with
 * its own label (components/form-status.tsx).
 */
export type ActionFailure = { ok?: undefined; error: string; field?: string; fields?: Record<string, string> };
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
    const values = form
      .getAll(key)
      .filter((v): v is string => typeof v === 'string')
      .map((v) => v.trim());
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

/**
 * AppError → its message; ZodError → a plain sentence per field (lib/plain-issues.ts), keyed by the
 * form's field name; anything else is rethrown. `input`: what the form sent, to say by how much a
 * value is too long.
 */
export function actionFailure(e: unknown, input?: FormFields): ActionFailure {
  if (e instanceof AppError) {
    const field = (e.details?.issues as { path?: string }[] | undefined)?.[0]?.path;
    if (e.details?.where !== 'form' || !field) return { error: e.message };
    // assertStorableText words it "<field> <what is wrong>".
    const predicate = e.message.startsWith(`${field} `) ? e.message.slice(field.length + 1) : e.message;
    return { error: sentence(fieldWords(field), predicate), field, fields: { [field]: predicate } };
  }
  if (e instanceof ZodError) {
    const fields: Record<string, string> = {};
    let error: string | undefined;
    for (const issue of e.issues) {
      const field = issue.path.map(String).join('.');
      if (!field) {
        error ??= plainIssue(issue);
        continue;
      }
      if (field in fields) continue;
      // A lib/ schema may nest what the form sent flat (`by.path` for the field `path`).
      const last = issue.path.at(-1);
      fields[field] = issuePredicate(issue, valueAt(input, issue.path) ?? (typeof last === 'string' ? input?.[last] : undefined));
      error ??= sentence(fieldWords(field), fields[field]);
    }
    const field = Object.keys(fields)[0];
    return field ? { error: error!, field, fields } : { error: error ?? 'This form could not be read.' };
  }
  // Next's redirect() and notFound() travel as exceptions: they must reach Next.
  throw e;
}
