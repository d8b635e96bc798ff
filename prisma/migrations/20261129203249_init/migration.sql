-- CreateEnum
CREATE TYPE "Role" AS ENUM ('support', 'lead', 'auditor', 'admin');

-- CreateEnum
CREATE TYPE "SourceKind" AS ENUM ('builtin', 'ingest');

-- CreateEnum
CREATE TYPE "OrderMode" AS ENUM ('none', 'key');

-- CreateEnum
CREATE TYPE "DeadLetterReason" AS ENUM ('MaxReceives', 'Rejected', 'Expired', 'KeyParked', 'RedriveLoop', 'Manual');

-- CreateEnum
CREATE TYPE "DeadLetterStatus" AS ENUM ('open', 'redriving', 'redriven', 'archived', 'discarded', 'expired');

-- CreateEnum
CREATE TYPE "RedriveTaskStatus" AS ENUM ('pending_approval', 'queued', 'running', 'paused', 'completed', 'cancelled', 'failed');

-- CreateEnum
CREATE TYPE "RedriveItemState" AS ENUM ('pending', 'sent', 'acknowledged', 'dead_again', 'skipped', 'failed');

-- CreateEnum
CREATE TYPE "AlarmKind" AS ENUM ('depth', 'age', 'rate');

-- CreateEnum
CREATE TYPE "AlarmStateValue" AS ENUM ('OK', 'PENDING', 'ALARM');

-- CreateEnum
CREATE TYPE "TokenKind" AS ENUM ('ingest', 'personal');

-- CreateTable
CREATE TABLE "teams" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "teams_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "email" TEXT NOT NULL,
    "name" TEXT,
    "role" "Role" NOT NULL,
    "team_id" UUID,
    "password_hash" TEXT,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_sessions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "user_agent" TEXT,
    "last_seen_at" TIMESTAMPTZ(3),

    CONSTRAINT "user_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sources" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "team_id" UUID NOT NULL,
    "kind" "SourceKind" NOT NULL DEFAULT 'builtin',
    "description" TEXT,
    "max_receives" INTEGER NOT NULL DEFAULT 10,
    "visibility_timeout_ms" INTEGER NOT NULL DEFAULT 30000,
    "backoff_base_ms" INTEGER NOT NULL DEFAULT 1000,
    "backoff_cap_ms" INTEGER NOT NULL DEFAULT 1024000,
    "max_redrives" INTEGER NOT NULL DEFAULT 2,
    "retention_seconds" INTEGER NOT NULL DEFAULT 1209600,
    "age_deadline_seconds" INTEGER NOT NULL DEFAULT 604800,
    "order_mode" "OrderMode" NOT NULL DEFAULT 'none',
    "approval_threshold" INTEGER NOT NULL DEFAULT 1000,
    "payload_limit_bytes" INTEGER NOT NULL DEFAULT 10485760,
    "redrive_url" TEXT,
    "redrive_secret" TEXT,
    "sensitive_paths" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sources_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dead_letters" (
    "id" BIGSERIAL NOT NULL,
    "source_id" UUID NOT NULL,
    "message_id" TEXT NOT NULL,
    "generation" INTEGER NOT NULL DEFAULT 0,
    "idempotency_key" TEXT,
    "ordering_key" TEXT,
    "reason" "DeadLetterReason" NOT NULL,
    "error_type" TEXT,
    "error_message" TEXT,
    "error_stack" TEXT,
    "receive_count" INTEGER NOT NULL DEFAULT 0,
    "redrive_count" INTEGER NOT NULL DEFAULT 0,
    "enqueued_at" TIMESTAMPTZ(3),
    "first_failed_at" TIMESTAMPTZ(3),
    "last_failed_at" TIMESTAMPTZ(3),
    "dead_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "consumer_name" TEXT,
    "consumer_version" TEXT,
    "correlation_id" TEXT,
    "partition" INTEGER,
    "offset" BIGINT,
    "payload" BYTEA,
    "payload_size" INTEGER NOT NULL,
    "payload_sha256" CHAR(64) NOT NULL,
    "content_type" TEXT,
    "payload_text" TEXT,
    "headers" JSONB NOT NULL DEFAULT '{}',
    "failure_history" JSONB NOT NULL DEFAULT '[]',
    "fingerprint" TEXT NOT NULL,
    "cluster_id" UUID,
    "status" "DeadLetterStatus" NOT NULL DEFAULT 'open',
    "decided_by_id" UUID,
    "decided_at" TIMESTAMPTZ(3),
    "decision_reason" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "sensitive" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dead_letters_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "clusters" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "fingerprint" TEXT NOT NULL,
    "template" TEXT NOT NULL,
    "error_type" TEXT,
    "top_frame" TEXT,
    "count" INTEGER NOT NULL DEFAULT 0,
    "open_count" INTEGER NOT NULL DEFAULT 0,
    "first_seen" TIMESTAMPTZ(3) NOT NULL,
    "last_seen" TIMESTAMPTZ(3) NOT NULL,
    "merged_into_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "clusters_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cluster_sources" (
    "cluster_id" UUID NOT NULL,
    "source_id" UUID NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,
    "open_count" INTEGER NOT NULL DEFAULT 0,
    "first_seen" TIMESTAMPTZ(3) NOT NULL,
    "last_seen" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "cluster_sources_pkey" PRIMARY KEY ("cluster_id","source_id")
);

-- CreateTable
CREATE TABLE "redrive_tasks" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "source_id" UUID NOT NULL,
    "status" "RedriveTaskStatus" NOT NULL DEFAULT 'queued',
    "selection" JSONB NOT NULL,
    "rate_per_second" INTEGER NOT NULL DEFAULT 10,
    "ramp" JSONB,
    "canary" BOOLEAN NOT NULL DEFAULT false,
    "total" INTEGER NOT NULL DEFAULT 0,
    "sent" INTEGER NOT NULL DEFAULT 0,
    "acknowledged" INTEGER NOT NULL DEFAULT 0,
    "dead_again" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "breaker_threshold" DOUBLE PRECISION NOT NULL DEFAULT 0.2,
    "breaker_window" INTEGER NOT NULL DEFAULT 50,
    "paused_reason" TEXT,
    "reason" TEXT,
    "created_by_id" UUID,
    "approved_by_id" UUID,
    "approved_at" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "redrive_tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "redrive_items" (
    "task_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "dead_letter_id" BIGINT NOT NULL,
    "state" "RedriveItemState" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "sent_at" TIMESTAMPTZ(3),
    "outcome_at" TIMESTAMPTZ(3),
    "error" TEXT,

    CONSTRAINT "redrive_items_pkey" PRIMARY KEY ("task_id","seq")
);

-- CreateTable
CREATE TABLE "audit_events" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_id" UUID,
    "actor_email" TEXT NOT NULL,
    "actor_role" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_type" TEXT,
    "target_id" TEXT,
    "team_id" UUID,
    "source_id" UUID,
    "selection" JSONB,
    "count" INTEGER,
    "reason" TEXT,
    "before" JSONB,
    "after" JSONB,
    "result" TEXT,
    "prev_hash" CHAR(64) NOT NULL,
    "hash" CHAR(64) NOT NULL,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alarm_states" (
    "source_id" UUID NOT NULL,
    "kind" "AlarmKind" NOT NULL,
    "state" "AlarmStateValue" NOT NULL DEFAULT 'OK',
    "since" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "label" TEXT,
    "detail" JSONB,
    "evaluated_at" TIMESTAMPTZ(3),

    CONSTRAINT "alarm_states_pkey" PRIMARY KEY ("source_id","kind")
);

-- CreateTable
CREATE TABLE "alarm_events" (
    "id" BIGSERIAL NOT NULL,
    "source_id" UUID NOT NULL,
    "kind" "AlarmKind" NOT NULL,
    "from" "AlarmStateValue" NOT NULL,
    "to" "AlarmStateValue" NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "label" TEXT,
    "detail" JSONB,

    CONSTRAINT "alarm_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dead_letter_rollups" (
    "source_id" UUID NOT NULL,
    "minute" TIMESTAMPTZ(0) NOT NULL,
    "reason" "DeadLetterReason" NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "dead_letter_rollups_pkey" PRIMARY KEY ("source_id","minute","reason")
);

-- CreateTable
CREATE TABLE "source_snapshots" (
    "source_id" UUID NOT NULL,
    "minute" TIMESTAMPTZ(0) NOT NULL,
    "open_count" INTEGER NOT NULL,
    "oldest_age_seconds" INTEGER NOT NULL,

    CONSTRAINT "source_snapshots_pkey" PRIMARY KEY ("source_id","minute")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "kind" "TokenKind" NOT NULL,
    "token_hash" CHAR(64) NOT NULL,
    "prefix" TEXT NOT NULL,
    "name" TEXT,
    "source_id" UUID,
    "user_id" UUID,
    "created_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhooks" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "team_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" BIGSERIAL NOT NULL,
    "webhook_id" UUID NOT NULL,
    "event" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "response_status" INTEGER,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "settings" (
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "settings_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE UNIQUE INDEX "teams_name_key" ON "teams"("name");

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "users_team_id_idx" ON "users"("team_id");

-- CreateIndex
CREATE INDEX "user_sessions_user_id_idx" ON "user_sessions"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "sources_name_key" ON "sources"("name");

-- CreateIndex
CREATE INDEX "sources_team_id_idx" ON "sources"("team_id");

-- CreateIndex
CREATE INDEX "dead_letters_source_id_status_dead_at_id_idx" ON "dead_letters"("source_id", "status", "dead_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "dead_letters_status_dead_at_id_idx" ON "dead_letters"("status", "dead_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "dead_letters_cluster_id_status_dead_at_id_idx" ON "dead_letters"("cluster_id", "status", "dead_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "dead_letters_source_id_error_type_idx" ON "dead_letters"("source_id", "error_type");

-- CreateIndex
CREATE INDEX "dead_letters_expires_at_idx" ON "dead_letters"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "dead_letters_source_id_message_id_generation_key" ON "dead_letters"("source_id", "message_id", "generation");

-- CreateIndex
CREATE UNIQUE INDEX "clusters_fingerprint_key" ON "clusters"("fingerprint");

-- CreateIndex
CREATE INDEX "clusters_last_seen_idx" ON "clusters"("last_seen" DESC);

-- CreateIndex
CREATE INDEX "cluster_sources_source_id_last_seen_idx" ON "cluster_sources"("source_id", "last_seen" DESC);

-- CreateIndex
CREATE INDEX "redrive_tasks_source_id_status_idx" ON "redrive_tasks"("source_id", "status");

-- CreateIndex
CREATE INDEX "redrive_tasks_status_created_at_idx" ON "redrive_tasks"("status", "created_at");

-- CreateIndex
CREATE INDEX "redrive_items_dead_letter_id_idx" ON "redrive_items"("dead_letter_id");

-- CreateIndex
CREATE INDEX "redrive_items_task_id_state_seq_idx" ON "redrive_items"("task_id", "state", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "redrive_items_task_id_dead_letter_id_key" ON "redrive_items"("task_id", "dead_letter_id");

-- CreateIndex
CREATE UNIQUE INDEX "audit_events_hash_key" ON "audit_events"("hash");

-- CreateIndex
CREATE INDEX "audit_events_at_idx" ON "audit_events"("at" DESC);

-- CreateIndex
CREATE INDEX "audit_events_actor_id_id_idx" ON "audit_events"("actor_id", "id");

-- CreateIndex
CREATE INDEX "audit_events_action_id_idx" ON "audit_events"("action", "id");

-- CreateIndex
CREATE INDEX "audit_events_source_id_id_idx" ON "audit_events"("source_id", "id");

-- CreateIndex
CREATE INDEX "audit_events_team_id_id_idx" ON "audit_events"("team_id", "id");

-- CreateIndex
CREATE INDEX "audit_events_target_type_target_id_idx" ON "audit_events"("target_type", "target_id");

-- CreateIndex
CREATE INDEX "alarm_events_source_id_at_idx" ON "alarm_events"("source_id", "at" DESC);

-- CreateIndex
CREATE INDEX "dead_letter_rollups_minute_idx" ON "dead_letter_rollups"("minute");

-- CreateIndex
CREATE INDEX "source_snapshots_minute_idx" ON "source_snapshots"("minute");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "api_tokens_source_id_idx" ON "api_tokens"("source_id");

-- CreateIndex
CREATE INDEX "api_tokens_user_id_idx" ON "api_tokens"("user_id");

-- CreateIndex
CREATE INDEX "webhooks_team_id_idx" ON "webhooks"("team_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_webhook_id_created_at_idx" ON "webhook_deliveries"("webhook_id", "created_at" DESC);

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_sessions" ADD CONSTRAINT "user_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sources" ADD CONSTRAINT "sources_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dead_letters" ADD CONSTRAINT "dead_letters_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dead_letters" ADD CONSTRAINT "dead_letters_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "clusters" ADD CONSTRAINT "clusters_merged_into_id_fkey" FOREIGN KEY ("merged_into_id") REFERENCES "clusters"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cluster_sources" ADD CONSTRAINT "cluster_sources_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cluster_sources" ADD CONSTRAINT "cluster_sources_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "redrive_tasks" ADD CONSTRAINT "redrive_tasks_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "redrive_items" ADD CONSTRAINT "redrive_items_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "redrive_tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alarm_states" ADD CONSTRAINT "alarm_states_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- ── Hand-written: what Prisma's schema language cannot say ──────────────────────────────────

-- The audit trail is append-only (DESIGN.md "The audit trail"): the database itself refuses
-- UPDATE, DELETE and TRUNCATE, whatever the application does.
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE TRIGGER audit_events_no_update_delete BEFORE UPDATE OR DELETE ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON "audit_events"
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();

-- Search in error text and payload text (trigram: substring search, any language).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX "dead_letters_error_message_trgm_idx" ON "dead_letters" USING gin ("error_message" gin_trgm_ops);
CREATE INDEX "dead_letters_payload_text_trgm_idx" ON "dead_letters" USING gin ("payload_text" gin_trgm_ops);

-- The age queries look only at open dead letters.
CREATE INDEX "dead_letters_open_age_idx" ON "dead_letters" ("source_id", "dead_at") WHERE status = 'open';
