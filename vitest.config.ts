import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const root = fileURLToPath(new URL('.', import.meta.url));

// Three workers by default on the two-core machine: most of the long files wait on brokers,
// restarts and backoffs rather than compute, and a third file fills those waits (vitest 625 → 479 s;
// CPU idle 23 → 16%). TRIAGE_TEST_WORKERS to choose.
export const TEST_WORKERS = Math.max(1, Number(process.env.TRIAGE_TEST_WORKERS) || 3);

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

// The order the files start in: the longest first, so that the workers finish together rather
// than one idling while the other runs a long fault test it picked up last (longest processing
// time first). vitest's own sequencer orders by the durations an earlier run on the machine cached
// in node_modules/.vite; a fresh clone (CI: `npm ci`) has none, and vitest then starts the largest
// files first, a poor guess for these. SLOW_FILES: the seconds of the slowest files on the 2-core
// machine; only their order matters, a cached duration wins, and a file not listed starts after
// them. `npm test` prints the slowest files of each run: one that grows slow belongs here.
const SLOW_FILES: Record<string, number> = {
  'test/integration/connectors-azure-queue-fault.test.ts': 89,
  'test/integration/connectors-sidekiq.test.ts': 89,
  'test/integration/fault-postgres-restart.test.ts': 80,
  'test/integration/redrive-fault.test.ts': 75,
  'test/integration/connectors-rabbitmq-fault.test.ts': 73,
  'test/integration/connectors-azure-queue.test.ts': 70,
  'test/integration/connectors-bullmq.test.ts': 65,
  'test/integration/connectors-postgres-restart.test.ts': 60,
  'test/integration/connectors-nats-fault.test.ts': 55,
  'test/integration/connectors-sqs-fault.test.ts': 50,
  'test/integration/redrive-outcomes.test.ts': 48,
  'test/integration/redrive.test.ts': 36,
  'test/integration/connectors-rabbitmq-input.test.ts': 32,
  'test/integration/audit-trail.test.ts': 32,
  'test/integration/clusters-corrections.test.ts': 32,
  'test/integration/db-replica.test.ts': 30,
};

class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // vitest's order: groups, then projects, then cached durations (or size).
    const base = await super.sort(files);
    const rank = new Map(base.map((spec, i) => [spec, i]));
    const seconds = (spec: TestSpecification) => {
      const file = relative(this.ctx.config.root, spec.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`);
      return cached ? cached.duration / 1000 : (SLOW_FILES[file] ?? 0);
    };
    return [...files].sort((a, b) => {
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      if (a.project.name !== b.project.name) return rank.get(a)! - rank.get(b)!;
      return seconds(b) - seconds(a) || rank.get(a)! - rank.get(b)!;
    });
  }
}

export default defineConfig({
  resolve: { alias: { '@': root.replace(/\/$/, '') } },
  test: {
    // The longest files first, so that both workers finish together (SlowestFirstSequencer above).
    sequence: { sequencer: SlowestFirstSequencer },
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
