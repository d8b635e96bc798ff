// /sign-in — password sign-in, plus single sign-on when OIDC is configured
import { redirect } from 'next/navigation';
import { HOME } from '@/lib/auth';
import { optionalActor } from '@/lib/auth/guard';
import { oidcConfigured } from '@/lib/env';
import { signInWithOidc } from './actions';
import { SignInForm } from './sign-in-form';

export const dynamic = 'force-dynamic';

export default async function SignInPage() {
  const actor = await optionalActor();
  if (actor) redirect(HOME[actor.role]);
  return (
    <div className="center">
      <div className="card signin">
        <h1>Sign in to Triage</h1>
        <SignInForm />
        {oidcConfigured() ? (
          <form action={signInWithOidc} style={{ marginTop: 12 }}>
            <button className="secondary" type="submit">
              Sign in with single sign-on
            </button>
          </form>
        ) : null}
      </div>
    </div>
  );
}
