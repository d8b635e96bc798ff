'use client';
import { useActionState } from 'react';
import { FormStatus } from '@/components/form-status';
import { signInWithPassword, type SignInState } from './actions';

export function SignInForm() {
  const [state, action, pending] = useActionState<SignInState, FormData>(signInWithPassword, {});
  return (
    <form action={action}>
      <label>
        E-mail
        <input name="email" type="email" autoComplete="username" required />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      <FormStatus state={state} block />
      <button type="submit" disabled={pending}>
        {pending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
