// The two Postgres clients of a process; the code is in pools.ts (see README.md for which to use).
export * from './pools';
