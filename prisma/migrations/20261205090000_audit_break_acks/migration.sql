-- A break in the audit chain that an admin has looked at and acknowledged, with a reason: verify
-- reports it as known and judges the chain after it on its own. The acknowledgement holds the
-- event as it was when acknowledged (its stored and recomputed hashes, its link): a later change to
-- the same event is a new break. The acknowledgement itself is an audit event (audit.break.acknowledge).
CREATE TABLE "audit_break_acks" (
    "id" BIGSERIAL PRIMARY KEY,
    "event_id" BIGINT NOT NULL,
    -- content | link | checkpoint (a CHECK below)
    "kind" TEXT NOT NULL,
    "stored_hash" CHAR(64) NOT NULL,
    "computed_hash" CHAR(64) NOT NULL,
    "prev_hash" CHAR(64) NOT NULL,
    "problem" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "by_user_id" UUID,
    "by_email" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT "audit_break_acks_kind" CHECK ("kind" IN ('content', 'link', 'checkpoint'))
);
CREATE UNIQUE INDEX "audit_break_acks_event_kind_hashes_key"
    ON "audit_break_acks" ("event_id", "kind", "stored_hash", "computed_hash", "prev_hash");
