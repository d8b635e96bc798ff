'use client';
// The one way a form posts to its server action (lib/auth/action.ts) and keeps what was typed.
// React resets a form's fields after every action it runs from `<form action>`, an error too, so a
// refused reason or ticket link was lost; here the submit is taken over (the same FormData, with the
// button pressed) and the form is reset only after a success, as before. `action` stays on the form
// for a submit before the page hydrates. Password fields are emptied after an error: a secret is not
// kept on the page.
import { startTransition, useActionState, useEffect, useRef, type FormEvent, type RefObject } from 'react';
import { requestFormReset } from 'react-dom';
import type { ActionState } from '@/lib/auth/action-form';

export interface ActionFormProps {
  ref: RefObject<HTMLFormElement | null>;
  action: (form: FormData) => void;
  onSubmit: (e: FormEvent<HTMLFormElement>) => void;
}

/**
 * `useActionState` for a form: `[state, formProps, pending]`, spread `formProps` on the `<form>`.
 * `keep`: never reset, not even after a success (a list's ticked rows, a preview that goes on).
 */
export function useActionForm<S extends ActionState>(
  action: (state: S, form: FormData) => Promise<S>,
  { keep = false }: { keep?: boolean } = {},
): [S, ActionFormProps, boolean] {
  const [state, dispatch, pending] = useActionState<S, FormData>(action, {} as Awaited<S>);
  const ref = useRef<HTMLFormElement>(null);
  useEffect(() => {
    const form = ref.current;
    if (!form) return;
    if (state.ok && !keep) startTransition(() => requestFormReset(form));
    if (state.error) for (const input of form.querySelectorAll<HTMLInputElement>('input[type=password]')) input.value = '';
  }, [state, keep]);
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget, (e.nativeEvent as SubmitEvent).submitter);
    startTransition(() => dispatch(data));
  };
  return [state, { ref, action: dispatch, onSubmit }, pending];
}
