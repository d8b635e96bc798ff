'use client';
// A one-button form posting to a server action (lib/auth/action.ts), its answer in place: the admin
// and webhook forms. `extra` shows what a success carries besides its message (a token, a link).
import type { ReactNode } from 'react';
import type { ActionState, ActionSuccess } from '@/lib/auth/action-form';
import { FormStatus } from './form-status';
import { useActionForm } from '@/components/use-action-form';

export function ActionForm<T extends object>({
  action,
  children,
  submit,
  testId,
  buttonClassName,
  extra,
}: {
  action: (s: ActionState<T>, f: FormData) => Promise<ActionState<T>>;
  children?: ReactNode;
  submit: string;
  testId?: string;
  buttonClassName?: string;
  extra?: (state: ActionSuccess<T>) => ReactNode;
}) {
  const [state, formProps, pending] = useActionForm(action);
  return (
    <form {...formProps} className="inline" data-testid={testId}>
      {children}
      <button type="submit" className={buttonClassName} disabled={pending}>
        {submit}
      </button>
      <FormStatus state={state} />
      {state.ok && extra ? extra(state) : null}
    </form>
  );
}
