'use client';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { ActionForm } from '@/components/action-form';
import type { ActionState } from '@/lib/auth/action-form';
import type { AdminData } from './actions';

export function AdminForm(props: {
  action: (s: ActionState<AdminData>, f: FormData) => Promise<ActionState<AdminData>>;
  children: ReactNode;
  submit: string;
  testId?: string;
}) {
  return (
    <ActionForm
      {...props}
      extra={(state) => (
        <>
          {state.token ? <code data-testid="new-token">{state.token}</code> : null}
          {state.href ? <Link href={state.href}>open it →</Link> : null}
        </>
      )}
    />
  );
}
