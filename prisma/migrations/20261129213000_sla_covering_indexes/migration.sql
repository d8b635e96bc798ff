-- Hand-written (Prisma's schema language cannot say INCLUDE): covering indexes for the age stats and
-- the charts, so their reads stay in the index at a million dead letters (test/bench/sla.bench.ts).

-- The 15-second age stats read dead_at, enqueued_at and expires_at of every open dead letter: with
-- them in the index that is an index-only scan, not a walk over wide dead-letter rows. Same name and
-- key as before, so every query the old index served, this one serves.
DROP INDEX "dead_letters_open_age_idx";
CREATE INDEX "dead_letters_open_age_idx" ON "dead_letters" ("source_id", "dead_at") INCLUDE ("enqueued_at", "expires_at") WHERE status = 'open';

-- A 30-day chart reads ~50,000 per-minute rows of one source, scattered over the heap among every
-- other source's: index-only, it reads them in order.
CREATE INDEX "dead_letter_rollups_chart_idx" ON "dead_letter_rollups" ("source_id", "minute") INCLUDE ("reason", "count");
CREATE INDEX "source_snapshots_chart_idx" ON "source_snapshots" ("source_id", "minute") INCLUDE ("open_count", "oldest_age_seconds");
