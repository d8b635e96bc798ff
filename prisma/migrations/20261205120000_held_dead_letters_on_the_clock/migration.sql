-- Nothing leaves the SLA clock until it leaves Triage: a dead letter a redrive task holds
-- ('redriving': queued, running or paused, a canary that died included) counts in every open, age,
-- breach and expiry figure, as an open one does. The open-minute counts follow both statuses; the
-- partial index of the one full pass covers both; the counts are rebuilt from the stored rows.
CREATE OR REPLACE FUNCTION dead_letter_open_follow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "dead_letter_open_pending" ("source_id", "dead_minute", "expires_minute", "clock_minute", "life_seconds", "count")
    SELECT "source_id", date_trunc('minute', "dead_at"), date_trunc('minute', "expires_at"),
      date_trunc('minute', LEAST("dead_at", COALESCE("enqueued_at", "dead_at"))), floor(extract(epoch FROM ("expires_at" - "dead_at")))::bigint, count(*)
    FROM new_rows WHERE "status" IN ('open', 'redriving') GROUP BY 1, 2, 3, 4, 5;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION dead_letter_open_follow_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Most updates (a cluster move, a payload edit, open ⇄ redriving) change no key: they cancel out.
  INSERT INTO "dead_letter_open_pending" ("source_id", "dead_minute", "expires_minute", "clock_minute", "life_seconds", "count")
    SELECT "source_id", date_trunc('minute', "dead_at"), date_trunc('minute', "expires_at"),
      date_trunc('minute', LEAST("dead_at", COALESCE("enqueued_at", "dead_at"))), floor(extract(epoch FROM ("expires_at" - "dead_at")))::bigint, sum(n)
    FROM (SELECT "source_id", "dead_at", "expires_at", "enqueued_at", 1 AS n FROM new_rows WHERE "status" IN ('open', 'redriving')
          UNION ALL SELECT "source_id", "dead_at", "expires_at", "enqueued_at", -1 FROM old_rows WHERE "status" IN ('open', 'redriving')) x
    GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION dead_letter_open_follow_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "dead_letter_open_pending" ("source_id", "dead_minute", "expires_minute", "clock_minute", "life_seconds", "count")
    SELECT "source_id", date_trunc('minute', "dead_at"), date_trunc('minute', "expires_at"),
      date_trunc('minute', LEAST("dead_at", COALESCE("enqueued_at", "dead_at"))), floor(extract(epoch FROM ("expires_at" - "dead_at")))::bigint, -count(*)
    FROM old_rows WHERE "status" IN ('open', 'redriving') GROUP BY 1, 2, 3, 4, 5;
  RETURN NULL;
END $$;

DROP INDEX "dead_letters_open_age_idx";
CREATE INDEX "dead_letters_open_age_idx" ON "dead_letters" ("source_id", "dead_at") INCLUDE ("enqueued_at", "expires_at")
  WHERE "status" IN ('open'::"DeadLetterStatus", 'redriving'::"DeadLetterStatus");

-- Rebuilt from the stored rows, writes held off meanwhile (later ones fire the new triggers).
LOCK TABLE "dead_letters" IN SHARE MODE;
DELETE FROM "dead_letter_open_pending";
DELETE FROM "dead_letter_open_minutes";
INSERT INTO "dead_letter_open_minutes" ("source_id", "dead_minute", "expires_minute", "clock_minute", "life_seconds", "count")
  SELECT "source_id", date_trunc('minute', "dead_at"), date_trunc('minute', "expires_at"),
    date_trunc('minute', LEAST("dead_at", COALESCE("enqueued_at", "dead_at"))), floor(extract(epoch FROM ("expires_at" - "dead_at")))::bigint, count(*)
  FROM "dead_letters" WHERE "status" IN ('open', 'redriving') GROUP BY 1, 2, 3, 4, 5;
