// One fresh, migrated database and one Redis key prefix per integration run.
import type { TestProject } from 'vitest/node';
import { dropDatabase, freshTestDatabase } from '../../scripts/lib/database.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    queuePrefix: string;
  }
}

export default async function setup(project: TestProject) {
  const base = process.env.DATABASE_URL ?? 'postgresql://localhost:5432/triage';
  const url = await freshTestDatabase(base, 'int');
  project.provide('databaseUrl', url);
  project.provide('queuePrefix', `triage-test-${process.pid}-${Date.now().toString(36)}`);
  return async () => {
    if (!process.env.TRIAGE_KEEP_TEST_DB) await dropDatabase(url);
  };
}
