'use client';
import { FormStatus } from '@/components/form-status';
import { signInWithPassword } from './actions';
import { useActionForm } from '@/components/use-action-form';

export function SignInForm() {
  const [state, formProps, pending] = useActionForm(signInWithPassword);
  return (
    <form {...formProps}>
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
