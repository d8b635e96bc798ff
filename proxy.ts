// Next's proxy (formerly middleware): a fresh nonce per page request and a Content-Security-Policy
// that runs only scripts carrying it (Next adds the nonce to its own scripts), and HSTS over HTTPS. Headers only: no
// authorization happens here; every page, route handler and server action checks on the server
// (lib/auth/guard.ts), so a skipped proxy (CVE-2025-29927) opens nothing.
import { NextResponse, type NextRequest } from 'next/server';

export function contentSecurityPolicy(nonce: string, dev: boolean): string {
  return [
    "default-src 'self'",
    // 'strict-dynamic': chunks loaded by a nonced script may run; no 'unsafe-inline' for scripts.
    // React's development build needs eval for its error overlays, never in production.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
    // React renders `style` attributes, which a nonce cannot cover; styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.randomUUID()).toString('base64');
  // NODE_ENV is inlined at build time, as in next.config.ts; lib/env is not loaded in the proxy.
  const csp = contentSecurityPolicy(nonce, process.env.NODE_ENV === 'development');
  // Next reads the nonce from the request's CSP header while rendering.
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('content-security-policy', csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set('content-security-policy', csp);
  // Served over HTTPS (APP_URL, read at run time): browsers keep to HTTPS for two years, so a
  // network attacker cannot strip it and take the session cookie off a plain-HTTP request.
  if (process.env.APP_URL?.startsWith('https://')) response.headers.set('strict-transport-security', 'max-age=63072000; includeSubDomains');
  return response;
}

export const config = {
  matcher: [
    {
      // Pages only: API responses are JSON or files and keep next.config.ts's sandboxing policy.
      source: '/((?!api/|_next/static|_next/image|favicon.ico).*)',
      missing: [
        { type: 'header', key: 'next-router-prefetch' },
        { type: 'header', key: 'purpose', value: 'prefetch' },
      ],
    },
  ],
};
