-- Redrive outcomes (issue 13): each task has an outcome window; a sent item with no outcome by its
-- end is final as "no death seen" (a connector broker has no acknowledgement to observe).
ALTER TYPE "RedriveItemState" ADD VALUE 'no_death_seen';

ALTER TABLE "redrive_tasks" ADD COLUMN "no_death_seen" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "outcome_window_ms" INTEGER NOT NULL DEFAULT 600000,
ADD COLUMN "canary_window_ms" INTEGER NOT NULL DEFAULT 60000;

-- Hand-written (Prisma's schema language cannot say WHERE): the items awaiting an outcome by send
-- time, so "is any window over?" and "when is the last one due?" are index probes, not a walk over
-- every sent item of the task twice a second.
CREATE INDEX "redrive_items_awaiting_idx" ON "redrive_items" ("task_id", "sent_at") WHERE state = 'sent';
