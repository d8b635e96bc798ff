-- The error types each source's dead letters have had, kept by the writer: the list's error-type
-- filter reads them here (a few rows) instead of a skip scan of (source_id, error_type) over every
-- partition, which cost 6 to 12 ms a request and more under write load.
CREATE TABLE "source_error_types" (
    "source_id" UUID NOT NULL,
    "error_type" TEXT NOT NULL,
    "first_seen" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "source_error_types_pkey" PRIMARY KEY ("source_id","error_type")
);

ALTER TABLE "source_error_types" ADD CONSTRAINT "source_error_types_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- What is stored already: a skip scan of each source's (source_id, error_type) index, one probe per
-- type, at most 201 per source (past 200 the filter does not resolve types); the maintenance cycle
-- repeats it (lib/intake/error-types.ts), for writers of the version before this one.
INSERT INTO "source_error_types" ("source_id", "error_type")
SELECT s.id, t.error_type FROM "sources" s, LATERAL (
  WITH RECURSIVE t(error_type, k) AS (
    (SELECT d.error_type, 1 FROM "dead_letters" d WHERE d.source_id = s.id AND d.error_type IS NOT NULL ORDER BY d.error_type LIMIT 1)
    UNION ALL
    SELECT (SELECT d.error_type FROM "dead_letters" d WHERE d.source_id = s.id AND d.error_type > t.error_type ORDER BY d.error_type LIMIT 1), t.k + 1
    FROM t WHERE t.error_type IS NOT NULL AND t.k <= 200)
  SELECT error_type FROM t WHERE error_type IS NOT NULL) t
ON CONFLICT DO NOTHING;
