-- A redrive task paused holds its dead letters: the source's 'redrive' alarm says so (PENDING while
-- paused, ALARM past REDRIVE_PAUSED_ALARM_SECONDS), from when the task was paused.
ALTER TYPE "AlarmKind" ADD VALUE 'redrive';
ALTER TABLE "redrive_tasks" ADD COLUMN "paused_at" TIMESTAMPTZ(3);
UPDATE "redrive_tasks" SET "paused_at" = "updated_at" WHERE "status" = 'paused';
