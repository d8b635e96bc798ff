'use client';
import Link from 'next/link';
import { useActionState, type ReactNode } from 'react';
import { FormStatus } from '@/components/form-status';
import type { ActionState } from '@/lib/auth/action';
import type { AdminData } from './actions';

export function AdminForm({
  action,
  children,
  submit,
  testId,
}: {
  action: (s: ActionState<AdminData>, f: FormData) => Promise<ActionState<AdminData>>;
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
      <FormStatus state={state} />
      {state.ok && state.token ? <code data-testid="new-token">{state.token}</code> : null}
      {state.ok && state.href ? <Link href={state.href}>open it →</Link> : null}
    </form>
  );
}
