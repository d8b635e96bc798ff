'use client';
import { useActionState, type ReactNode } from 'react';
import type { WebhookState } from './actions';

export function WebhookForm({
  action,
  children,
  submit,
  testId,
  className,
}: {
  action: (s: WebhookState, f: FormData) => Promise<WebhookState>;
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
      {state.ok ? (
        <span className="badge good" role="status">
          {state.ok}
        </span>
      ) : null}
      {state.secret ? <code data-testid="webhook-secret">{state.secret}</code> : null}
      {state.error ? (
        <span className="error" role="alert">
          {state.error}
        </span>
      ) : null}
    </form>
  );
}
