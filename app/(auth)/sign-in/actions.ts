'use server';
// Sign-in form action: Auth.js credentials; failures and rate limits come back as a message. Public
// and guarded by Auth.js itself, so not through the action client (lib/auth/action.ts), but its state
// has that client's shape, for the same form status component.
import { AuthError } from 'next-auth';
import type { ActionIdle, ActionFailure } from '@/lib/auth/action';
import { signIn } from '@/lib/auth/next-auth';

export type SignInState = ActionIdle | ActionFailure;

export async function signInWithPassword(_prev: SignInState, form: FormData): Promise<SignInState> {
  try {
    await signIn('credentials', { email: form.get('email'), password: form.get('password'), redirectTo: '/' });
    return {};
  } catch (e) {
    if (e instanceof AuthError) {
      const code = (e as AuthError & { code?: string }).code;
      return { error: code === 'rate_limited' ? 'Too many sign-in attempts. Wait a few minutes and try again.' : 'Wrong e-mail or password.' };
    }
    throw e; // the success redirect travels as an exception
  }
}

export async function signInWithOidc(): Promise<void> {
  await signIn('oidc', { redirectTo: '/' });
}
