import type { NextConfig } from 'next';

const securityHeaders = [
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'Referrer-Policy', value: 'same-origin' },
  { key: 'Content-Security-Policy', value: "frame-ancestors 'none'; object-src 'none'; base-uri 'self'; form-action 'self'" },
];

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
  async headers() {
    return [{ source: '/:path*', headers: securityHeaders }];
  },
};

export default config;
