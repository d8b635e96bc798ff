import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  resolve: { alias: { '@': root.replace(/\/$/, '') } },
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node' },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          // The security suite (test/security) runs on the same real services.
          include: ['test/integration/**/*.test.ts', 'test/security/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/integration/global-setup.ts'],
          setupFiles: ['test/integration/setup-env.ts'],
          // Integration tests share one database per run; files run one at a time, as formbricks does.
          fileParallelism: false,
          // Route handlers import next-auth, whose ESM imports "next/server" without an extension:
          // let Vite resolve it instead of Node.
          server: { deps: { inline: ['next-auth'] } },
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
