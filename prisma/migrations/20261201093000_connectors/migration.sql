-- Connectors (issue 13): sources that read a broker's own dead-letter queue. All four broker kinds are
-- added now, so the later connectors (SQS, NATS) need no enum migration of their own.
ALTER TYPE "SourceKind" ADD VALUE 'rabbitmq';
ALTER TYPE "SourceKind" ADD VALUE 'bullmq';
ALTER TYPE "SourceKind" ADD VALUE 'sqs';
ALTER TYPE "SourceKind" ADD VALUE 'nats';

-- RabbitMQ's "maxlen" (a queue length limit pushed the message out) has no Triage reason yet.
ALTER TYPE "DeadLetterReason" ADD VALUE 'MaxLength';

-- A connector source whose broker stays unreachable raises this alarm.
ALTER TYPE "AlarmKind" ADD VALUE 'connector';

-- Non-secret connection settings (validated per kind by the connector), the encrypted secrets, and
-- the per-source import switch.
ALTER TABLE "sources" ADD COLUMN "connection" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN "connection_secret" BYTEA,
ADD COLUMN "import_paused" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "connector_health" (
    "source_id" UUID NOT NULL,
    "last_poll_at" TIMESTAMPTZ(3),
    "last_success_at" TIMESTAMPTZ(3),
    "imported_total" BIGINT NOT NULL DEFAULT 0,
    "lag" BIGINT,
    "last_error" TEXT,
    "last_error_at" TIMESTAMPTZ(3),
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "connector_health_pkey" PRIMARY KEY ("source_id")
);

-- AddForeignKey
ALTER TABLE "connector_health" ADD CONSTRAINT "connector_health_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;
