// Prisma (through the pg driver adapter) for the domain; postgres.js for COPY ingest and streamed
// reads. One pool each per process, reused across Next's hot reloads.
import { PrismaPg } from '@prisma/adapter-pg';
import postgres from 'postgres';
import { PrismaClient } from '@/generated/prisma/client';
import { env } from './env';

export type Db = PrismaClient;
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

const g = globalThis as unknown as { __triageDb?: PrismaClient; __triageSql?: postgres.Sql };

export function createDb(url = env().DATABASE_URL, max = 10): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max, connectionTimeoutMillis: 5_000 }) });
}

export function db(): PrismaClient {
  g.__triageDb ??= createDb();
  return g.__triageDb;
}

export function sql(): postgres.Sql {
  g.__triageSql ??= postgres(env().DATABASE_URL, {
    max: 5,
    connect_timeout: 5,
    onnotice: () => {},
    types: { bigint: postgres.BigInt },
  });
  return g.__triageSql;
}

export async function closeDb(): Promise<void> {
  await Promise.all([g.__triageDb?.$disconnect(), g.__triageSql?.end({ timeout: 5 })]);
  g.__triageDb = undefined;
  g.__triageSql = undefined;
}
