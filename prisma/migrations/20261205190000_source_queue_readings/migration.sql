-- An empty dead-letter queue proves nothing when nothing consumes the source queue: a connector
-- source's own queue (depth, in flight, consumers, oldest age) is read on the maintenance cycle and
-- kept here, and its 'consumer' alarm fires when that queue has messages and no consumer, or its
-- oldest message waits past SOURCE_QUEUE_MAX_AGE_SECONDS.
ALTER TYPE "AlarmKind" ADD VALUE 'consumer';

CREATE TABLE "source_queue_readings" (
    "source_id" UUID NOT NULL,
    "queue" TEXT,
    "depth" BIGINT,
    "in_flight" BIGINT,
    "consumers" INTEGER,
    "oldest_age_seconds" INTEGER,
    "read_at" TIMESTAMPTZ(3),
    "error" TEXT,
    "error_at" TIMESTAMPTZ(3),

    CONSTRAINT "source_queue_readings_pkey" PRIMARY KEY ("source_id")
);

ALTER TABLE "source_queue_readings" ADD CONSTRAINT "source_queue_readings_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;
