-- Monthly range partitioning of dead_letters by dead_at (issue 19). See docs/design.md,
-- "Partitioning". What this migration does, and why in this order:
--
-- 1. dead_letter_keys: an unpartitioned table of (source, message id, generation) → id, dead_at and
--    SHA-256. A partitioned unique index must contain dead_at, so the idempotency key lives here,
--    written first by recordDeadLetters in the same transaction; it also keeps ids unique, so the
--    tables that pointed at dead_letters(id) point at it instead. Keys outlive a dropped partition.
-- 2. The old table is renamed, not copied: a partitioned parent with the same columns takes its name
--    and the old table is ATTACHed as one partition covering everything up to the end of the month
--    of its newest row. A validated CHECK constraint that implies the partition bound lets ATTACH
--    skip its scan; the parent's indexes are declared exactly as the old ones, so ATTACH adopts them
--    instead of building them. Built: the key table, the (id, dead_at) primary key and a non-unique
--    (source, message id, generation) index in place of the unique one.
-- 3. Months ahead (this one and the next two) and a DEFAULT partition, so an insert never fails;
--    the maintenance worker keeps creating months ahead (lib/retention/partitions.ts).
-- 4. dead_letter_tombstones: the compact rows a dropped partition leaves behind (what the audit
--    trail and redrive tasks refer to).

LOCK TABLE "dead_letters" IN ACCESS EXCLUSIVE MODE;

-- 1. The key table, filled from the stored rows.
CREATE TABLE "dead_letter_keys" (
    "id" BIGINT NOT NULL,
    "source_id" UUID NOT NULL,
    "message_id" TEXT NOT NULL,
    "generation" INTEGER NOT NULL,
    "dead_at" TIMESTAMPTZ(3) NOT NULL,
    "payload_sha256" CHAR(64) NOT NULL,
    CONSTRAINT "dead_letter_keys_pkey" PRIMARY KEY ("id")
);
INSERT INTO "dead_letter_keys" ("id", "source_id", "message_id", "generation", "dead_at", "payload_sha256")
  SELECT "id", "source_id", "message_id", "generation", "dead_at", "payload_sha256" FROM "dead_letters";
CREATE UNIQUE INDEX "dead_letter_keys_source_id_message_id_generation_key" ON "dead_letter_keys" ("source_id", "message_id", "generation");

-- References move to the key table (a foreign key to a partitioned table needs the partition key).
ALTER TABLE "dead_letter_search" DROP CONSTRAINT "dead_letter_search_dead_letter_id_fkey";
ALTER TABLE "dead_letter_versions" DROP CONSTRAINT "dead_letter_versions_dead_letter_id_fkey";
ALTER TABLE "dead_letter_search" ADD CONSTRAINT "dead_letter_search_dead_letter_id_fkey"
  FOREIGN KEY ("dead_letter_id") REFERENCES "dead_letter_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "dead_letter_versions" ADD CONSTRAINT "dead_letter_versions_dead_letter_id_fkey"
  FOREIGN KEY ("dead_letter_id") REFERENCES "dead_letter_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- 2. The old table becomes a partition.
ALTER TABLE "dead_letters" RENAME TO "dead_letters_legacy";
ALTER SEQUENCE "dead_letters_id_seq" OWNED BY NONE; -- or dropping that partition one day would drop the sequence
DROP TRIGGER "dead_letter_versions_follow_payload" ON "dead_letters_legacy"; -- the parent's is cloned onto it
ALTER TABLE "dead_letters_legacy" DROP CONSTRAINT "dead_letters_pkey";
DROP INDEX "dead_letters_source_id_message_id_generation_key"; -- the key table enforces it now
ALTER TABLE "dead_letters_legacy" RENAME CONSTRAINT "dead_letters_source_id_fkey" TO "dead_letters_legacy_source_id_fkey";
ALTER TABLE "dead_letters_legacy" RENAME CONSTRAINT "dead_letters_cluster_id_fkey" TO "dead_letters_legacy_cluster_id_fkey";
ALTER INDEX "dead_letters_source_id_status_dead_at_id_idx" RENAME TO "dead_letters_legacy_source_id_status_dead_at_id_idx";
ALTER INDEX "dead_letters_status_dead_at_id_idx" RENAME TO "dead_letters_legacy_status_dead_at_id_idx";
ALTER INDEX "dead_letters_cluster_id_status_dead_at_id_idx" RENAME TO "dead_letters_legacy_cluster_id_status_dead_at_id_idx";
ALTER INDEX "dead_letters_source_id_error_type_idx" RENAME TO "dead_letters_legacy_source_id_error_type_idx";
ALTER INDEX "dead_letters_expires_at_idx" RENAME TO "dead_letters_legacy_expires_at_idx";
ALTER INDEX "dead_letters_open_expiry_idx" RENAME TO "dead_letters_legacy_open_expiry_idx";
ALTER INDEX "dead_letters_open_age_idx" RENAME TO "dead_letters_legacy_open_age_idx";

CREATE TABLE "dead_letters" (LIKE "dead_letters_legacy" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)
  PARTITION BY RANGE ("dead_at");
ALTER SEQUENCE "dead_letters_id_seq" OWNED BY "dead_letters"."id";
ALTER TABLE "dead_letters" ADD CONSTRAINT "dead_letters_pkey" PRIMARY KEY ("id", "dead_at");
ALTER TABLE "dead_letters" ADD CONSTRAINT "dead_letters_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "dead_letters" ADD CONSTRAINT "dead_letters_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE SET NULL ON UPDATE CASCADE;
CREATE INDEX "dead_letters_source_id_status_dead_at_id_idx" ON "dead_letters" ("source_id", "status", "dead_at" DESC, "id" DESC);
CREATE INDEX "dead_letters_status_dead_at_id_idx" ON "dead_letters" ("status", "dead_at" DESC, "id" DESC);
CREATE INDEX "dead_letters_cluster_id_status_dead_at_id_idx" ON "dead_letters" ("cluster_id", "status", "dead_at" DESC, "id" DESC);
CREATE INDEX "dead_letters_source_id_error_type_idx" ON "dead_letters" ("source_id", "error_type");
CREATE INDEX "dead_letters_expires_at_idx" ON "dead_letters" ("expires_at");
CREATE INDEX "dead_letters_open_expiry_idx" ON "dead_letters" ("expires_at") WHERE "status" = 'open'::"DeadLetterStatus";
CREATE INDEX "dead_letters_open_age_idx" ON "dead_letters" ("source_id", "dead_at") INCLUDE ("enqueued_at", "expires_at") WHERE "status" = 'open'::"DeadLetterStatus";
-- Not unique any more (dead_letter_keys is), but still the way to a message's generations: redrive
-- outcomes and the list's message-id filter look rows up by (source, message id).
CREATE INDEX "dead_letters_source_id_message_id_generation_idx" ON "dead_letters" ("source_id", "message_id", "generation");

-- The payload's edited versions follow it (as before, now on every partition).
CREATE TRIGGER "dead_letter_versions_follow_payload" AFTER UPDATE OF "payload" ON "dead_letters"
  FOR EACH ROW WHEN (OLD."payload" IS NOT NULL AND NEW."payload" IS NULL)
  EXECUTE FUNCTION dead_letter_versions_follow_payload();

-- The key table follows rows written or removed other than by recordDeadLetters (which writes the
-- keys itself first and says so with triage.keys_written): a bulk load, a test's reset, a DELETE.
CREATE FUNCTION dead_letter_keys_follow_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('triage.keys_written', true) = 'on' THEN RETURN NULL; END IF;
  INSERT INTO "dead_letter_keys" ("id", "source_id", "message_id", "generation", "dead_at", "payload_sha256")
    SELECT "id", "source_id", "message_id", "generation", "dead_at", "payload_sha256" FROM new_rows
    ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER "dead_letter_keys_follow_insert" AFTER INSERT ON "dead_letters"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_keys_follow_insert();

CREATE FUNCTION dead_letter_keys_follow_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('triage.keys_written', true) = 'on' THEN RETURN NULL; END IF;
  DELETE FROM "dead_letter_keys" k USING old_rows o WHERE k."id" = o."id";
  RETURN NULL;
END $$;
CREATE TRIGGER "dead_letter_keys_follow_delete" AFTER DELETE ON "dead_letters"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_keys_follow_delete();

CREATE FUNCTION dead_letter_keys_follow_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A DELETE, not a TRUNCATE … CASCADE: that would reach redrive_items (through dead_letter_versions),
  -- which the TRUNCATE that fired this may be truncating right now. The foreign keys' cascade takes
  -- dead_letter_search and dead_letter_versions with it.
  DELETE FROM "dead_letter_keys";
  RETURN NULL;
END $$;
CREATE TRIGGER "dead_letter_keys_follow_truncate" AFTER TRUNCATE ON "dead_letters"
  FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_keys_follow_truncate();

-- Attach the old rows (no rewrite), then months ahead and the default partition.
DO $$
DECLARE
  newest timestamptz;
  upper_bound timestamptz;
  m timestamptz;
  this_month timestamptz := date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
BEGIN
  SELECT max("dead_at") INTO newest FROM "dead_letters_legacy";
  IF newest IS NULL THEN
    DROP TABLE "dead_letters_legacy";
    upper_bound := this_month;
  ELSE
    upper_bound := (date_trunc('month', newest AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
    -- Validated here (a scan under the lock this migration holds anyway), so ATTACH does not scan again.
    EXECUTE format('ALTER TABLE "dead_letters_legacy" ADD CONSTRAINT "dead_letters_legacy_bound" CHECK ("dead_at" < %L::timestamptz)', upper_bound);
    EXECUTE format('ALTER TABLE "dead_letters" ATTACH PARTITION "dead_letters_legacy" FOR VALUES FROM (MINVALUE) TO (%L)', upper_bound);
    ALTER TABLE "dead_letters_legacy" DROP CONSTRAINT "dead_letters_legacy_bound";
    -- Its foreign keys (to sources and clusters) were adopted by the parent's on ATTACH, not checked again.
  END IF;
  m := greatest(upper_bound, this_month);
  -- A month that begins before the legacy partition ends (its newest row is this month) starts at its end.
  WHILE m < (this_month + interval '3 months') LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF "dead_letters" FOR VALUES FROM (%L) TO (%L)',
      'dead_letters_p' || to_char(m AT TIME ZONE 'UTC', 'YYYYMM'), m,
      (date_trunc('month', m AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC');
    m := (date_trunc('month', m AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
  END LOOP;
END $$;
CREATE TABLE "dead_letters_default" PARTITION OF "dead_letters" DEFAULT;

-- 4. What a dropped partition leaves: the decided row without payload, headers or stacks.
CREATE TABLE "dead_letter_tombstones" (
    "id" BIGINT NOT NULL,
    "source_id" UUID NOT NULL,
    "message_id" TEXT NOT NULL,
    "generation" INTEGER NOT NULL,
    "reason" "DeadLetterReason" NOT NULL,
    "error_type" TEXT,
    "fingerprint" TEXT NOT NULL,
    "cluster_id" UUID,
    "status" "DeadLetterStatus" NOT NULL,
    "dead_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "decided_at" TIMESTAMPTZ(3),
    "decided_by_id" UUID,
    "decision_reason" TEXT,
    "payload_size" INTEGER NOT NULL,
    "payload_sha256" CHAR(64) NOT NULL,
    "dropped_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "dead_letter_tombstones_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "dead_letter_tombstones_source_id_dead_at_idx" ON "dead_letter_tombstones" ("source_id", "dead_at");
