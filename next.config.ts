import type { NextConfig } from 'next';

const securityHeaders = [
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'Referrer-Policy', value: 'same-origin' },
  // Pages: the proxy replaces it with its nonce policy (proxy.ts).
  { key: 'Content-Security-Policy', value: "frame-ancestors 'none'; object-src 'none'; base-uri 'self'; form-action 'self'" },
];

// The API answers data and files, never a document to render: nothing in it may run, load or be
// framed, whatever a payload or an export holds. It is set here because a header set here wins over
// the route handler's own (Next does not replace it). Auth.js's routes keep the pages' policy.
const apiPolicy = { key: 'Content-Security-Policy', value: "default-src 'none'; sandbox; frame-ancestors 'none'" };

const config: NextConfig = {
  poweredByHeader: false,
  // Lets side-by-side builds (parallel test runs) keep apart; config, like prisma.config.ts, is
  // read by its tool before the app's env module exists.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // Server-only libraries with native or dynamic requires stay out of the bundle.
  serverExternalPackages: ['pino', 'postgres', 'bullmq', 'ioredis', 'pg', '@prisma/adapter-pg', 'prom-client'],
  // Playwright and local users reach `next dev` as 127.0.0.1 too.
  allowedDevOrigins: ['127.0.0.1', 'localhost'],
  typedRoutes: false,
  // `npm test` type-checks the whole tree (tsc --noEmit, the same tsconfig and files) before its
  // browser step builds the app: TRIAGE_TYPECHECKED=1 spares that build a second pass, a minute or
  // two on the 2-core machine. Every other build (npm run build, the image) checks its types.
  typescript: { ignoreBuildErrors: process.env.TRIAGE_TYPECHECKED === '1' },
  // forbidden(): /forbidden, where the guard sends a page a role may not open, answers 403 (app/forbidden.tsx).
  experimental: { authInterrupts: true },
  async headers() {
    // The later entry wins for a header both set.
    return [
      { source: '/:path*', headers: securityHeaders },
      { source: '/api/:path((?!auth/).*)', headers: [apiPolicy] },
    ];
  },
};

export default config;
