-- Edit and redrive, bulk transforms and redrive to another source (issue 17).
ALTER TABLE "sources" ADD COLUMN "edit_approval_threshold" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN "redrive_allowed_from" UUID[] DEFAULT ARRAY[]::UUID[];

ALTER TABLE "redrive_tasks" ADD COLUMN "destination_source_id" UUID,
ADD COLUMN "edit" JSONB;

ALTER TABLE "redrive_items" ADD COLUMN "version_id" BIGINT;

CREATE TABLE "dead_letter_versions" (
    "id" BIGSERIAL NOT NULL,
    "dead_letter_id" BIGINT NOT NULL,
    "version" INTEGER NOT NULL,
    "payload" BYTEA NOT NULL,
    "payload_size" INTEGER NOT NULL,
    "payload_sha256" CHAR(64) NOT NULL,
    "content_type" TEXT,
    "headers" JSONB NOT NULL DEFAULT '{}',
    "diff" JSONB NOT NULL,
    "transform" JSONB,
    "created_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dead_letter_versions_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "dead_letter_versions_dead_letter_id_version_key" ON "dead_letter_versions"("dead_letter_id", "version");

ALTER TABLE "dead_letter_versions" ADD CONSTRAINT "dead_letter_versions_dead_letter_id_fkey" FOREIGN KEY ("dead_letter_id") REFERENCES "dead_letters"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "redrive_tasks" ADD CONSTRAINT "redrive_tasks_destination_source_id_fkey" FOREIGN KEY ("destination_source_id") REFERENCES "sources"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "redrive_items" ADD CONSTRAINT "redrive_items_version_id_fkey" FOREIGN KEY ("version_id") REFERENCES "dead_letter_versions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Hand-written: a dead letter whose payload is gone (discarded, expired) keeps no edited copy of it
-- either, whichever code path cleared it.
CREATE FUNCTION "dead_letter_versions_follow_payload"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "dead_letter_versions" WHERE "dead_letter_id" = NEW."id";
  RETURN NEW;
END $$;

CREATE TRIGGER "dead_letter_versions_follow_payload" AFTER UPDATE OF "payload" ON "dead_letters"
  FOR EACH ROW WHEN (OLD."payload" IS NOT NULL AND NEW."payload" IS NULL)
  EXECUTE FUNCTION "dead_letter_versions_follow_payload"();
