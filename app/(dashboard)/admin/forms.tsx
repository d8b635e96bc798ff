'use client';
import Link from 'next/link';
import { useActionState, type ReactNode } from 'react';
import type { AdminState } from './actions';

export function AdminForm({
  action,
  children,
  submit,
  testId,
}: {
  action: (s: AdminState, f: FormData) => Promise<AdminState>;
  children: ReactNode;
  submit: string;
  testId?: string;
}) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="inline" data-testid={testId}>
      {children}
      <button type="submit" disabled={pending}>
        {submit}
      </button>
      {state.ok ? <span className="badge good" role="status">{state.ok}</span> : null}
      {state.error ? <span className="error" role="alert">{state.error}</span> : null}
      {state.token ? <code data-testid="new-token">{state.token}</code> : null}
      {state.href ? <Link href={state.href}>open it →</Link> : null}
    </form>
  );
}
