'use client';
import { useActionState, type ReactNode } from 'react';
import { FormStatus } from '@/components/form-status';
import type { ActionState } from '@/lib/auth/action';
import type { WebhookData } from './actions';

export function WebhookForm({
  action,
  children,
  submit,
  testId,
  className,
}: {
  action: (s: ActionState<WebhookData>, f: FormData) => Promise<ActionState<WebhookData>>;
  children?: ReactNode;
  submit: string;
  testId?: string;
  className?: string;
}) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="inline" data-testid={testId}>
      {children}
      <button type="submit" className={className} disabled={pending}>
        {submit}
      </button>
      <FormStatus state={state} />
      {state.ok && state.secret ? <code data-testid="webhook-secret">{state.secret}</code> : null}
    </form>
  );
}
