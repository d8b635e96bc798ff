-- Worker heartbeats (issue 15): each worker process upserts its row every few seconds and deletes
-- it on a clean stop, so health can tell a worker that stopped making progress (stale) from one
-- that was stopped on purpose (gone).
CREATE TABLE "worker_heartbeats" (
    "kind" TEXT NOT NULL,
    "instance" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "beat_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "worker_heartbeats_pkey" PRIMARY KEY ("kind","instance")
);
