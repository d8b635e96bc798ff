-- What each dead letter's error says about its cause (lib/clustering/classify-error.ts), decided
-- once at write time: transient (the downstream failed), permanent (the message is bad) or unknown.
-- NULL on the rows written before, read as unknown: the classifier lives in the application, and a
-- backfill of millions of rows is not worth holding the table for; the class counts that matter are
-- the last hour's. A cluster keeps the class of its latest arrivals, for the inbox and the redrive
-- warning; the alarms count arrivals per class in dead_letter_arrivals.
CREATE TYPE "ErrorClass" AS ENUM ('transient', 'permanent', 'unknown');

ALTER TABLE "dead_letters" ADD COLUMN "error_class" "ErrorClass";
ALTER TABLE "clusters" ADD COLUMN "error_class" "ErrorClass" NOT NULL DEFAULT 'unknown';

-- The class joins the arrivals' key. Rows counted before are unknown, like their dead letters.
ALTER TABLE "dead_letter_arrivals" ADD COLUMN "error_class" "ErrorClass" NOT NULL DEFAULT 'unknown';
ALTER TABLE "dead_letter_arrivals" DROP CONSTRAINT "dead_letter_arrivals_pkey";
ALTER TABLE "dead_letter_arrivals" ADD CONSTRAINT "dead_letter_arrivals_pkey" PRIMARY KEY ("second", "source_id", "cluster_id", "error_class");
ALTER TABLE "dead_letter_arrival_pending" ADD COLUMN "error_class" "ErrorClass" NOT NULL DEFAULT 'unknown';

CREATE OR REPLACE FUNCTION dead_letter_arrivals_follow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "dead_letter_arrival_pending" ("second", "source_id", "cluster_id", "error_class", "count")
    SELECT date_trunc('second', n."dead_at"), n."source_id", COALESCE(n."cluster_id", '00000000-0000-0000-0000-000000000000'),
      COALESCE(n."error_class", 'unknown'), count(*)
    FROM new_rows n, (SELECT LEAST(max("dead_at"), now()) - interval '2 hours' AS "since" FROM new_rows) b
    WHERE n."dead_at" > b."since" GROUP BY 1, 2, 3, 4;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION dead_letter_arrivals_follow_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Most updates (a status, a payload) change no key: they cancel out.
  INSERT INTO "dead_letter_arrival_pending" ("second", "source_id", "cluster_id", "error_class", "count")
    SELECT date_trunc('second', "dead_at"), "source_id", COALESCE("cluster_id", '00000000-0000-0000-0000-000000000000'),
      COALESCE("error_class", 'unknown'), sum(n)
    FROM (SELECT "dead_at", "source_id", "cluster_id", "error_class", 1 AS n FROM new_rows WHERE "dead_at" > now() - interval '2 hours'
          UNION ALL SELECT "dead_at", "source_id", "cluster_id", "error_class", -1 FROM old_rows WHERE "dead_at" > now() - interval '2 hours') x
    GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION dead_letter_arrivals_follow_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "dead_letter_arrival_pending" ("second", "source_id", "cluster_id", "error_class", "count")
    SELECT date_trunc('second', "dead_at"), "source_id", COALESCE("cluster_id", '00000000-0000-0000-0000-000000000000'),
      COALESCE("error_class", 'unknown'), -count(*)
    FROM old_rows WHERE "dead_at" > now() - interval '2 hours' GROUP BY 1, 2, 3, 4;
  RETURN NULL;
END $$;
