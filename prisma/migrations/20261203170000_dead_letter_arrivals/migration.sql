-- The alarm evaluation's last hour of arrivals without a pass over every dead letter of that hour
-- (issue 19: 10-13 s a cycle at 2.2-2.5M rows in the storm bench). dead_letter_arrivals counts the
-- dead letters per second of death, source and cluster; a figure is the sum of the whole seconds
-- inside its window plus an exact read of the seconds its window's edges fall in
-- (lib/alarms/evaluate-alarms.ts). Statement-level triggers append the differences each statement
-- makes (inserts, cluster or death-time changes, deletes) to dead_letter_arrival_pending; the
-- evaluation drains it. Append-only, as the other pending counts: concurrent writers never wait on a
-- shared row. Only the last two hours are kept: an insert counts the rows dead within two hours of the
-- newest row of its statement (or of now, when that is earlier), so a bulk load of history adds
-- nothing, and a test's clock in the past still sees its rows; later changes count for rows dead
-- within two hours of now, which an insert always counted.
CREATE TABLE "dead_letter_arrivals" (
    "second" TIMESTAMPTZ(0) NOT NULL,
    "source_id" UUID NOT NULL,
    -- A dead letter with no cluster counts under the nil UUID (a key column cannot be NULL).
    "cluster_id" UUID NOT NULL,
    "count" BIGINT NOT NULL,
    CONSTRAINT "dead_letter_arrivals_pkey" PRIMARY KEY ("second", "source_id", "cluster_id")
);
CREATE TABLE "dead_letter_arrival_pending" (
    "id" BIGSERIAL NOT NULL,
    "second" TIMESTAMPTZ(0) NOT NULL,
    "source_id" UUID NOT NULL,
    "cluster_id" UUID NOT NULL,
    "count" BIGINT NOT NULL,
    CONSTRAINT "dead_letter_arrival_pending_pkey" PRIMARY KEY ("id")
);

CREATE FUNCTION dead_letter_arrivals_follow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "dead_letter_arrival_pending" ("second", "source_id", "cluster_id", "count")
    SELECT date_trunc('second', n."dead_at"), n."source_id", COALESCE(n."cluster_id", '00000000-0000-0000-0000-000000000000'), count(*)
    FROM new_rows n, (SELECT LEAST(max("dead_at"), now()) - interval '2 hours' AS "since" FROM new_rows) b
    WHERE n."dead_at" > b."since" GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;
CREATE TRIGGER "dead_letter_arrivals_follow_insert" AFTER INSERT ON "dead_letters"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_arrivals_follow_insert();

CREATE FUNCTION dead_letter_arrivals_follow_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Most updates (a status, a payload) change no key: they cancel out.
  INSERT INTO "dead_letter_arrival_pending" ("second", "source_id", "cluster_id", "count")
    SELECT date_trunc('second', "dead_at"), "source_id", COALESCE("cluster_id", '00000000-0000-0000-0000-000000000000'), sum(n)
    FROM (SELECT "dead_at", "source_id", "cluster_id", 1 AS n FROM new_rows WHERE "dead_at" > now() - interval '2 hours'
          UNION ALL SELECT "dead_at", "source_id", "cluster_id", -1 FROM old_rows WHERE "dead_at" > now() - interval '2 hours') x
    GROUP BY 1, 2, 3 HAVING sum(n) <> 0;
  RETURN NULL;
END $$;
CREATE TRIGGER "dead_letter_arrivals_follow_update" AFTER UPDATE ON "dead_letters"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_arrivals_follow_update();

CREATE FUNCTION dead_letter_arrivals_follow_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "dead_letter_arrival_pending" ("second", "source_id", "cluster_id", "count")
    SELECT date_trunc('second', "dead_at"), "source_id", COALESCE("cluster_id", '00000000-0000-0000-0000-000000000000'), -count(*)
    FROM old_rows WHERE "dead_at" > now() - interval '2 hours' GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;
CREATE TRIGGER "dead_letter_arrivals_follow_delete" AFTER DELETE ON "dead_letters"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_arrivals_follow_delete();

CREATE FUNCTION dead_letter_arrivals_follow_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "dead_letter_arrival_pending";
  DELETE FROM "dead_letter_arrivals";
  RETURN NULL;
END $$;
CREATE TRIGGER "dead_letter_arrivals_follow_truncate" AFTER TRUNCATE ON "dead_letters"
  FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_arrivals_follow_truncate();

-- Filled from the stored rows of the last two hours, writes held off meanwhile (later ones fire the triggers).
LOCK TABLE "dead_letters" IN SHARE MODE;
INSERT INTO "dead_letter_arrivals" ("second", "source_id", "cluster_id", "count")
  SELECT date_trunc('second', "dead_at"), "source_id", COALESCE("cluster_id", '00000000-0000-0000-0000-000000000000'), count(*)
  FROM "dead_letters" WHERE "dead_at" > now() - interval '2 hours' GROUP BY 1, 2, 3;
