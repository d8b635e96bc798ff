// Auth.js (next-auth v5): credentials with scrypt-hashed passwords, and an optional OIDC provider
// configured by env. Sessions are JWTs that name a server-side session row (see actor.ts).
import NextAuth, { CredentialsSignin, type NextAuthConfig } from 'next-auth';
import Credentials from 'next-auth/providers/credentials';
import { z } from 'zod';
import { db } from '@/lib/db';
import { env, oidcConfigured } from '@/lib/env';
import { oidcSignInAllowed } from './oidc';
import { KdfBusy, verifyPassword } from './password';
import { releaseSignInAttempt, takeSignInAttempt } from './rate-limit';
import { SESSION_MAX_AGE_SECONDS, closeSession, openSession, recordFailedSignIn, recordUnknownEmailFailure } from './sessions';

class RateLimited extends CredentialsSignin {
  code = 'rate_limited';
}

const credentials = z.object({ email: z.string().trim().toLowerCase().email().max(320), password: z.string().min(1).max(1024) });

function clientAddress(req: Request): string | undefined {
  if (!env().TRUST_PROXY) return undefined;
  return req.headers.get('x-forwarded-for')?.split(',')[0]?.trim() || req.headers.get('x-real-ip') || undefined;
}

function providers(): NextAuthConfig['providers'] {
  const list: NextAuthConfig['providers'] = [
    Credentials({
      credentials: { email: { label: 'E-mail', type: 'email' }, password: { label: 'Password', type: 'password' } },
      async authorize(raw, request) {
        const parsed = credentials.safeParse(raw);
        if (!parsed.success) return null;
        const { email, password } = parsed.data;
        const ip = clientAddress(request);
        // Counted first, atomically: a refused attempt costs no KDF and, but for the one that trips
        // the limit, no audit append.
        const take = await takeSignInAttempt(email, ip);
        if (!take.allowed) {
          if (take.justLimited) await recordFailedSignIn(email, 'rate limited');
          throw new RateLimited();
        }
        const user = await db().user.findUnique({ where: { email } });
        // A flood the KDF gate refuses is a rate limit too (nothing checked, nothing appended).
        const ok = await verifyPassword(password, user?.passwordHash).catch((e: unknown) => {
          if (e instanceof KdfBusy) throw new RateLimited();
          throw e;
        });
        if (!user) {
          await recordUnknownEmailFailure();
          return null;
        }
        if (!ok || user.disabled) {
          await recordFailedSignIn(email, user.disabled ? 'disabled' : 'bad credentials');
          return null;
        }
        await releaseSignInAttempt(email, ip);
        return { id: user.id, email: user.email, name: user.name };
      },
    }),
  ];
  if (oidcConfigured()) {
    const e = env();
    list.push({
      id: 'oidc',
      name: e.OIDC_NAME,
      type: 'oidc',
      issuer: e.OIDC_ISSUER,
      clientId: e.OIDC_CLIENT_ID,
      clientSecret: e.OIDC_CLIENT_SECRET,
    });
  }
  return list;
}

export const { handlers, auth, signIn, signOut } = NextAuth(() => ({
  secret: env().AUTH_SECRET,
  trustHost: true,
  session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS },
  pages: { signIn: '/sign-in' },
  providers: providers(),
  callbacks: {
    // OIDC users must already exist (an admin creates them with their role), linked by a verified e-mail.
    async signIn({ user, account, profile }) {
      if (account?.provider === 'credentials') return true;
      return oidcSignInAllowed({ email: profile?.email ?? user.email, email_verified: profile?.email_verified });
    },
    async jwt({ token, user, account }) {
      if (user && account) {
        const dbUser = await db().user.findUniqueOrThrow({ where: { email: user.email!.toLowerCase() } });
        token.uid = dbUser.id;
        token.sid = await openSession(dbUser, account.provider);
      }
      return token;
    },
    session({ session, token }) {
      return { ...session, uid: token.uid as string, sid: token.sid as string };
    },
  },
  events: {
    async signOut(message) {
      const sid = 'token' in message ? (message.token?.sid as string | undefined) : undefined;
      if (sid) await closeSession(sid);
    },
  },
}));
