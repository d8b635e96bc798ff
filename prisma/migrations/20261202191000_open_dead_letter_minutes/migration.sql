-- Age stats without a pass over every open dead letter (issue 19: 2-3 s a cycle at 2.5M open).
-- dead_letter_open_minutes counts the open dead letters per source and per (minute of death, minute
-- of expiry, minute of the enqueue clock, whole seconds from death to expiry): those stay few rows
-- (a source's retention makes expiry follow death) and a figure is the sum of the whole minutes
-- before its threshold plus an exact read of the one boundary minute (lib/sla/age-stats.ts).
-- Statement-level triggers append the differences each statement makes (inserts, status and expiry
-- changes, deletes) to dead_letter_open_pending; the refresh drains it. Append-only, as the rollups'
-- pending counts: concurrent writers never wait on a shared row. A dropped partition holds no open
-- dead letter (lib/retention/partitions.ts re-checks), so it changes nothing here.
CREATE TABLE "dead_letter_open_minutes" (
    "source_id" UUID NOT NULL,
    "dead_minute" TIMESTAMPTZ(0) NOT NULL,
    "expires_minute" TIMESTAMPTZ(0) NOT NULL,
    "clock_minute" TIMESTAMPTZ(0) NOT NULL,
    "life_seconds" BIGINT NOT NULL,
    "count" BIGINT NOT NULL,
    CONSTRAINT "dead_letter_open_minutes_pkey" PRIMARY KEY ("source_id", "dead_minute", "expires_minute", "clock_minute", "life_seconds")
);
CREATE TABLE "dead_letter_open_pending" (
    "id" BIGSERIAL NOT NULL,
    "source_id" UUID NOT NULL,
    "dead_minute" TIMESTAMPTZ(0) NOT NULL,
    "expires_minute" TIMESTAMPTZ(0) NOT NULL,
    "clock_minute" TIMESTAMPTZ(0) NOT NULL,
    "life_seconds" BIGINT NOT NULL,
    "count" BIGINT NOT NULL,
    CONSTRAINT "dead_letter_open_pending_pkey" PRIMARY KEY ("id")
);

-- The key of a row, as both tables and the triggers spell it.
CREATE VIEW "dead_letter_open_keys" AS
  SELECT "id", "source_id", date_trunc('minute', "dead_at") AS "dead_minute", date_trunc('minute', "expires_at") AS "expires_minute",
    date_trunc('minute', LEAST("dead_at", COALESCE("enqueued_at", "dead_at"))) AS "clock_minute",
    floor(extract(epoch FROM ("expires_at" - "dead_at")))::bigint AS "life_seconds"
  FROM "dead_letters" WHERE "status" = 'open';

CREATE FUNCTION dead_letter_open_follow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "dead_letter_open_pending" ("source_id", "dead_minute", "expires_minute", "clock_minute", "life_seconds", "count")
    SELECT "source_id", date_trunc('minute', "dead_at"), date_trunc('minute', "expires_at"),
      date_trunc('minute', LEAST("dead_at", COALESCE("enqueued_at", "dead_at"))), floor(extract(epoch FROM ("expires_at" - "dead_at")))::bigint, count(*)
    FROM new_rows WHERE "status" = 'open' GROUP BY 1, 2, 3, 4, 5;
  RETURN NULL;
END $$;
CREATE TRIGGER "dead_letter_open_follow_insert" AFTER INSERT ON "dead_letters"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_open_follow_insert();

CREATE FUNCTION dead_letter_open_follow_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Most updates of open rows (a cluster move, a payload edit) change no key: they cancel out.
  INSERT INTO "dead_letter_open_pending" ("source_id", "dead_minute", "expires_minute", "clock_minute", "life_seconds", "count")
    SELECT "source_id", date_trunc('minute', "dead_at"), date_trunc('minute', "expires_at"),
      date_trunc('minute', LEAST("dead_at", COALESCE("enqueued_at", "dead_at"))), floor(extract(epoch FROM ("expires_at" - "dead_at")))::bigint, sum(n)
    FROM (SELECT "source_id", "dead_at", "expires_at", "enqueued_at", 1 AS n FROM new_rows WHERE "status" = 'open'
          UNION ALL SELECT "source_id", "dead_at", "expires_at", "enqueued_at", -1 FROM old_rows WHERE "status" = 'open') x
    GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0;
  RETURN NULL;
END $$;
CREATE TRIGGER "dead_letter_open_follow_update" AFTER UPDATE ON "dead_letters"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_open_follow_update();

CREATE FUNCTION dead_letter_open_follow_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "dead_letter_open_pending" ("source_id", "dead_minute", "expires_minute", "clock_minute", "life_seconds", "count")
    SELECT "source_id", date_trunc('minute', "dead_at"), date_trunc('minute', "expires_at"),
      date_trunc('minute', LEAST("dead_at", COALESCE("enqueued_at", "dead_at"))), floor(extract(epoch FROM ("expires_at" - "dead_at")))::bigint, -count(*)
    FROM old_rows WHERE "status" = 'open' GROUP BY 1, 2, 3, 4, 5;
  RETURN NULL;
END $$;
CREATE TRIGGER "dead_letter_open_follow_delete" AFTER DELETE ON "dead_letters"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_open_follow_delete();

CREATE FUNCTION dead_letter_open_follow_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "dead_letter_open_pending";
  DELETE FROM "dead_letter_open_minutes";
  RETURN NULL;
END $$;
CREATE TRIGGER "dead_letter_open_follow_truncate" AFTER TRUNCATE ON "dead_letters"
  FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_open_follow_truncate();

-- Filled from the stored rows, writes held off meanwhile (later ones fire the triggers).
LOCK TABLE "dead_letters" IN SHARE MODE;
INSERT INTO "dead_letter_open_minutes" ("source_id", "dead_minute", "expires_minute", "clock_minute", "life_seconds", "count")
  SELECT "source_id", "dead_minute", "expires_minute", "clock_minute", "life_seconds", count(*) FROM "dead_letter_open_keys" GROUP BY 1, 2, 3, 4, 5;
DROP VIEW "dead_letter_open_keys";
