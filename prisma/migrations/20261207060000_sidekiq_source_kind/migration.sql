-- Sidekiq connector sources: another application's Sidekiq dead set on its Redis.
ALTER TYPE "SourceKind" ADD VALUE 'sidekiq';
