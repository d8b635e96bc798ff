// Single sign-on: which existing account an IdP's sign-in becomes. Users are never created here (an
// admin creates them with their role); an account is linked by its e-mail only when the IdP says it
// verified that e-mail, or whoever can register the address at the IdP becomes the user.
import { db } from '@/lib/db';
import { recordFailedSignIn } from './sessions';

export interface OidcClaims {
  email?: string | null;
  email_verified?: unknown;
}

export async function oidcSignInAllowed(claims: OidcClaims): Promise<boolean> {
  const email = claims.email?.trim().toLowerCase();
  if (!email) {
    await recordFailedSignIn('unknown', 'no e-mail from the identity provider');
    return false;
  }
  // Exactly true: a missing claim or the string "true" is no verification.
  if (claims.email_verified !== true) {
    await recordFailedSignIn(email, 'e-mail not verified by the identity provider');
    return false;
  }
  const known = await db().user.findUnique({ where: { email } });
  if (!known || known.disabled) {
    await recordFailedSignIn(email, 'no such user for single sign-on');
    return false;
  }
  return true;
}
