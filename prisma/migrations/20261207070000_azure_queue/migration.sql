-- Azure Storage queues (Azure Functions' poison queues) as a connector kind.
ALTER TYPE "SourceKind" ADD VALUE 'azure_queue';

-- An Azure queue message carries nothing but its text, and Azure Functions moves a poison message
-- to `<queue>-poison` as a new message with a new id: a redriven message that dies again can only be
-- recognised by its bytes. Each redrive send leaves a row here (the text's SHA-256, the original id
-- and the redrive count it went out with); the import claims one for a poison message with the same
-- bytes, so the message is the next generation of the same dead letter. `claimed_by` holds the
-- claiming message's id: a crash before its delete re-reads the same claim, never a second one.
CREATE TABLE "azure_queue_redrives" (
    "id" BIGSERIAL NOT NULL,
    "source_id" UUID NOT NULL,
    "payload_sha256" BYTEA NOT NULL,
    "original_id" TEXT NOT NULL,
    "redrive_count" INTEGER NOT NULL,
    "sent_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "claimed_by" TEXT,

    CONSTRAINT "azure_queue_redrives_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "azure_queue_redrives_source_id_payload_sha256_idx" ON "azure_queue_redrives"("source_id", "payload_sha256");

ALTER TABLE "azure_queue_redrives" ADD CONSTRAINT "azure_queue_redrives_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;
