// The queue module's names and producers are in queues.ts; the job catalog, enqueue and the worker
// side are imported from their own files.
export * from './queues';
