-- One runner per redrive task, held in the task row (issue 15): the runner that owns the lease is
-- the only one whose claims return items. The supervisor's advisory lock is lost when its session
-- drops (a Postgres restart), the lease is not: a second runner waits for it to lapse.
ALTER TABLE "redrive_tasks" ADD COLUMN "runner_id" UUID,
ADD COLUMN "runner_lease_until" TIMESTAMPTZ(3);
