-- The dead-letter list filtered by source, status and error type (the storm's "what is this error
-- doing to my source" page): one ordered index scan per (source, status, error type) branch, stopped
-- at the page, instead of walking a source's open rows in dead_at order and testing each one's type.
-- On the partitioned parent, as the partition migration created the others: each partition gets its
-- own index (CONCURRENTLY is not possible on a partitioned table, nor inside the migration's
-- transaction); a partition created later inherits it.
CREATE INDEX "dead_letters_source_id_status_error_type_dead_at_id_idx" ON "dead_letters" ("source_id", "status", "error_type", "dead_at" DESC, "id" DESC);
