-- Per-minute rollups counted from the new rows only (issue 19). Before, computeRollups recounted
-- every (source, minute) bucket that received a row since the run before last: during a storm a
-- minute holds ~700k dead letters, recounted each cycle. Now a statement-level insert trigger
-- appends the statement's counts per (source, minute, reason) to dead_letter_rollup_pending (one
-- aggregate over the transition table, a few rows per batch, no row updated: no hot-row contention
-- between concurrent ingest transactions) and computeRollups drains it with DELETE … RETURNING.
-- A transaction that commits late is drained by the next run; none is counted twice.
CREATE TABLE "dead_letter_rollup_pending" (
    "id" BIGSERIAL NOT NULL,
    "source_id" UUID NOT NULL,
    "minute" TIMESTAMPTZ(0) NOT NULL,
    "reason" "DeadLetterReason" NOT NULL,
    "count" INTEGER NOT NULL,
    CONSTRAINT "dead_letter_rollup_pending_pkey" PRIMARY KEY ("id")
);

CREATE FUNCTION dead_letter_rollups_follow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "dead_letter_rollup_pending" ("source_id", "minute", "reason", "count")
    SELECT "source_id", date_trunc('minute', "dead_at"), "reason", count(*) FROM new_rows GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;
CREATE TRIGGER "dead_letter_rollups_follow_insert" AFTER INSERT ON "dead_letters"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_rollups_follow_insert();

-- Emptied dead letters (a test's reset) leave nothing to count.
CREATE FUNCTION dead_letter_rollups_follow_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "dead_letter_rollup_pending";
  RETURN NULL;
END $$;
CREATE TRIGGER "dead_letter_rollups_follow_truncate" AFTER TRUNCATE ON "dead_letters"
  FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_rollups_follow_truncate();

-- The last recount of the old way, as pending differences: every bucket holding a row above the
-- watermark of the run before last (all of them on a database never rolled up) is recounted here,
-- so nothing stored before this migration is missed or counted twice. Under a lock that holds off
-- ingest for the scan (rows a concurrent transaction inserts after it fire the new trigger).
LOCK TABLE "dead_letters" IN SHARE MODE;
WITH lo AS (
  SELECT COALESCE((SELECT (value ->> 'previous')::bigint FROM settings WHERE key = 'rollups.watermark'), 0) AS id),
touched AS (
  SELECT DISTINCT d.source_id, date_trunc('minute', d.dead_at) AS minute FROM dead_letters d, lo WHERE d.id > lo.id),
fresh AS (
  SELECT d.source_id, date_trunc('minute', d.dead_at) AS minute, d.reason, count(*)::int AS n FROM dead_letters d
  WHERE (d.source_id, date_trunc('minute', d.dead_at)) IN (SELECT source_id, minute FROM touched) GROUP BY 1, 2, 3),
old AS (
  SELECT r.source_id, r.minute, r.reason, r.count FROM dead_letter_rollups r JOIN touched t USING (source_id, minute))
INSERT INTO "dead_letter_rollup_pending" ("source_id", "minute", "reason", "count")
  SELECT source_id, minute, reason, COALESCE(f.n, 0) - COALESCE(o.count, 0)
  FROM fresh f FULL JOIN old o USING (source_id, minute, reason)
  WHERE COALESCE(f.n, 0) <> COALESCE(o.count, 0);
DELETE FROM settings WHERE key = 'rollups.watermark';
