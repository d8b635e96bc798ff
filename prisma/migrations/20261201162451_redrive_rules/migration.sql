-- Redrive rules (issue 17): a lead's standing order per source to start an ordinary redrive task
-- after a wave (the rate alarm OK again for N seconds) or when a cluster is resolved with a fix
-- version. Rate waves record which clusters drove each rate-alarm episode; rule runs make a rule
-- start once per trigger (unique key), and tasks name the rule that started them.
CREATE TABLE "rate_waves" (
    "id" BIGSERIAL NOT NULL,
    "source_id" UUID NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "peak" "AlarmStateValue" NOT NULL,
    "ended_at" TIMESTAMPTZ(3),
    "dead_letters" INTEGER NOT NULL DEFAULT 0,
    "cluster_ids" UUID[] NOT NULL DEFAULT ARRAY[]::UUID[],
    CONSTRAINT "rate_waves_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "rate_waves_source_id_ended_at_idx" ON "rate_waves"("source_id", "ended_at");
ALTER TABLE "rate_waves" ADD CONSTRAINT "rate_waves_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "redrive_rules" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "source_id" UUID NOT NULL,
    "kind" TEXT NOT NULL CHECK ("kind" IN ('after_wave', 'on_resolved')),
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "ok_for_seconds" INTEGER,
    "rate_per_second" INTEGER NOT NULL DEFAULT 10,
    "canary" BOOLEAN NOT NULL DEFAULT true,
    "created_by_id" UUID NOT NULL,
    "disabled_reason" TEXT,
    "disabled_at" TIMESTAMPTZ(3),
    "last_run_at" TIMESTAMPTZ(3),
    "last_task_id" UUID,
    "last_result" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "redrive_rules_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "redrive_rules_ok_for_check" CHECK ("kind" <> 'after_wave' OR "ok_for_seconds" IS NOT NULL)
);
CREATE INDEX "redrive_rules_source_id_idx" ON "redrive_rules"("source_id");
CREATE UNIQUE INDEX "redrive_rules_source_id_name_key" ON "redrive_rules"("source_id", "name");
ALTER TABLE "redrive_rules" ADD CONSTRAINT "redrive_rules_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "redrive_rules" ADD CONSTRAINT "redrive_rules_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

CREATE TABLE "redrive_rule_runs" (
    "id" BIGSERIAL NOT NULL,
    "rule_id" UUID NOT NULL,
    "trigger_key" TEXT NOT NULL,
    "wave_id" BIGINT,
    "cluster_id" UUID,
    "task_id" UUID,
    "state" TEXT NOT NULL CHECK ("state" IN ('claimed', 'started', 'tripped', 'skipped', 'failed')),
    "result" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "redrive_rule_runs_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "redrive_rule_runs_rule_id_trigger_key_key" ON "redrive_rule_runs"("rule_id", "trigger_key");
CREATE INDEX "redrive_rule_runs_task_id_idx" ON "redrive_rule_runs"("task_id");
ALTER TABLE "redrive_rule_runs" ADD CONSTRAINT "redrive_rule_runs_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "redrive_rules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "redrive_tasks" ADD COLUMN "rule_id" UUID;
ALTER TABLE "redrive_tasks" ADD CONSTRAINT "redrive_tasks_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "redrive_rules"("id") ON DELETE SET NULL ON UPDATE CASCADE;
CREATE INDEX "redrive_tasks_rule_id_idx" ON "redrive_tasks"("rule_id");
