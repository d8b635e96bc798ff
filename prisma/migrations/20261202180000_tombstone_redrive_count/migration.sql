-- A dropped dead letter's redrive count stays with its tombstone: the BullMQ connector derives the
-- next generation's count (its loop guard, the source's maxRedrives) from the previous generation's,
-- which may be a tombstone by then (docs/design.md "Partitioning").
--
-- Tombstones dropped before this column existed lost the count with their rows; their generation is
-- the nearest bound there is: equal to the count for the runtime and the RabbitMQ, SQS and NATS
-- connectors (the generation of a redriven message is its redrive count), at least the count for
-- BullMQ (an application's own retry is a generation too), so the loop guard errs towards stopping.
ALTER TABLE "dead_letter_tombstones" ADD COLUMN "redrive_count" INTEGER;
UPDATE "dead_letter_tombstones" SET "redrive_count" = "generation";
ALTER TABLE "dead_letter_tombstones" ALTER COLUMN "redrive_count" SET NOT NULL;
