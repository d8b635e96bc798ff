// Fresh, migrated databases for an integration run, one per worker (cloned from one migrated
// template), and a Redis key prefix for the run that each worker extends with its own number.
import type { TestProject } from 'vitest/node';
import { dropDatabase, freshTestDatabase } from '../../scripts/lib/database.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrls: string[];
    queuePrefix: string;
  }
}

export default async function setup(project: TestProject) {
  const base = process.env.DATABASE_URL ?? 'postgresql://localhost:5432/triage';
  const workers = project.config.maxWorkers || 1;
  const label = project.name.replace(/[^a-z0-9]+/gi, '_');
  const urls: string[] = [];
  for (let i = 1; i <= workers; i++) urls.push(await freshTestDatabase(base, `${label}_w${i}`));
  project.provide('databaseUrls', urls);
  project.provide('queuePrefix', `triage-test-${process.pid}-${Date.now().toString(36)}-${label}`);
  return async () => {
    if (!process.env.TRIAGE_KEEP_TEST_DB) for (const url of urls) await dropDatabase(url);
  };
}
