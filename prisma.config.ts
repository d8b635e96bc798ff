// Prisma CLI config (Prisma 7 reads no .env file by itself). Run the CLI through
// `node scripts/prisma.mjs …` so it works offline. The one place outside lib/env.ts that reads
// process.env: the CLI loads this file on its own, not through the app's env parsing.
import { defineConfig } from 'prisma/config';
import { withDefaultUser } from './lib/db-url.mjs';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: {
    url: withDefaultUser(process.env.DATABASE_URL || 'postgresql://localhost:5432/triage'),
    // Optional: migrate dev otherwise creates (and drops) a temporary shadow database.
    shadowDatabaseUrl: process.env.SHADOW_DATABASE_URL || undefined,
  },
});
