// The one server-action client (model: formbricks lib/utils/action-client, dub's
// authActionClient): same-origin check, session and permission (guard.ts), then the form read by
// one rule and parsed by the action's schema, then the lib/ call. The answer is one shape for every
// form: `{ ok: true, message?, ...data }` or `{ error, field? }` (components/form-status.tsx shows it).
import type { z } from 'zod';
import { markWrite } from '@/lib/db/replica';
import { actionFailure, formFields, type ActionReply, type FormFields, type ActionState, type ActionSuccess } from './action-form';
import type { Actor } from './actor';
import { actionActor } from './guard';
import type { Permission } from './permissions';

export * from './action-form';

/** The raw FormData too, for readers of dotted field names (the admin connection fields). */
export type ActionContext = { actor: Actor; form: FormData };

/**
 * A server action for a form (`useActionState(action, {})`). `permission` may depend on the input
 * (archive or discard); then the form is parsed first, otherwise the caller is checked first.
 */
export function action<S extends z.ZodType<object>, T extends object = object>(
  permission: Permission | ((input: z.output<S>) => Permission),
  schema: S,
  fn: (input: z.output<S>, ctx: ActionContext) => Promise<ActionReply<T>>,
): (previous: ActionState<T>, form: FormData) => Promise<ActionState<T>> {
  return async (_previous, data) => {
    let fields: FormFields | undefined;
    try {
      let input: z.output<S>;
      let actor: Actor;
      if (typeof permission === 'function') {
        fields = formFields(data);
        input = schema.parse(fields);
        actor = await actionActor(permission(input));
      } else {
        actor = await actionActor(permission);
        fields = formFields(data);
        input = schema.parse(fields);
      }
      let reply: ActionReply<T>;
      try {
        reply = await fn(input, { actor, form: data });
      } finally {
        // Also before a redirect (thrown): the page it leads to must show what this action wrote.
        await markWrite(actor);
      }
      return { ...reply, ok: true } as ActionSuccess<T>;
    } catch (e) {
      return actionFailure(e, fields);
    }
  };
}
