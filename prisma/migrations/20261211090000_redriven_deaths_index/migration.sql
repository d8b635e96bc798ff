-- The deaths of redriven messages: a redrive task scans its source for a newer generation of what it
-- sent (every few seconds while it runs, and at each window's end). Through the (source, status,
-- dead_at) index that read every open dead letter of the source since the task began: 1.3 s a scan
-- at a million, on a source a storm is filling. Generation 0 (a first death) is never one of them,
-- and is almost every row: this index holds only the others. On the partitioned parent, as the
-- others (CONCURRENTLY is possible on neither a partitioned table nor in the migration's
-- transaction): the build reads each partition once and holds writes for that long; a partition
-- created later inherits it.
CREATE INDEX "dead_letters_redriven_deaths_idx" ON "dead_letters" ("source_id", "created_at") WHERE "generation" > 0 AND "status" = 'open';
