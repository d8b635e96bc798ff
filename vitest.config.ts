import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

// Two workers by default (the machine has two cores); TRIAGE_TEST_WORKERS to choose.
export const TEST_WORKERS = Math.max(1, Number(process.env.TRIAGE_TEST_WORKERS) || 2);

// Files that stop or restart a server every test shares (RabbitMQ, NATS, Redis): they run last, one
// at a time, after the parallel files have finished. (The Postgres restarts run on a private server.)
export const SERIAL_FILES = [
  'test/integration/connectors-nats-restart.test.ts',
  'test/integration/connectors-rabbitmq-restart.test.ts',
  'test/integration/fault-runtime.test.ts',
];

const integration: NonNullable<TestProjectInlineConfiguration['test']> = {
  environment: 'node',
  // Each worker gets a database of its own, cloned from one migrated template, and a Redis key
  // prefix of its own (global-setup.ts, setup-env.ts).
  globalSetup: ['test/integration/global-setup.ts'],
  setupFiles: ['test/integration/setup-env.ts'],
  // Route handlers import next-auth, whose ESM imports "next/server" without an extension:
  // let Vite resolve it instead of Node.
  server: { deps: { inline: ['next-auth'] } },
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  resolve: { alias: { '@': root.replace(/\/$/, '') } },
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node', maxWorkers: TEST_WORKERS },
      },
      {
        extends: true,
        test: {
          ...integration,
          name: 'integration',
          // The security suite (test/security) runs on the same real services.
          include: ['test/integration/**/*.test.ts', 'test/security/**/*.test.ts'],
          exclude: SERIAL_FILES,
          maxWorkers: TEST_WORKERS,
        },
      },
      {
        extends: true,
        test: {
          ...integration,
          name: 'integration-serial',
          include: SERIAL_FILES,
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
