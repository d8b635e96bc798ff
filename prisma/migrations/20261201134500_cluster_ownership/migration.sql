-- Ownership of a cause (issue 17): who is on a cluster, where it stands, its notes.
CREATE TABLE "cluster_ownership" (
    "cluster_id" UUID NOT NULL,
    "assignee_id" UUID,
    "status" TEXT NOT NULL DEFAULT 'open',
    "ticket_url" TEXT,
    "hold_until" TIMESTAMPTZ(3),
    "fix_version" TEXT,
    "regressed_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cluster_ownership_pkey" PRIMARY KEY ("cluster_id"),
    CONSTRAINT "cluster_ownership_status_check" CHECK ("status" IN ('open', 'investigating', 'waiting_for_fix', 'on_hold', 'resolved'))
);

CREATE TABLE "cluster_notes" (
    "id" BIGSERIAL NOT NULL,
    "cluster_id" UUID NOT NULL,
    "author_id" UUID,
    "author_email" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cluster_notes_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "cluster_ownership_assignee_id_idx" ON "cluster_ownership"("assignee_id");
CREATE INDEX "cluster_ownership_status_idx" ON "cluster_ownership"("status");
CREATE INDEX "cluster_notes_cluster_id_id_idx" ON "cluster_notes"("cluster_id", "id");

ALTER TABLE "cluster_ownership" ADD CONSTRAINT "cluster_ownership_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "cluster_ownership" ADD CONSTRAINT "cluster_ownership_assignee_id_fkey" FOREIGN KEY ("assignee_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "cluster_notes" ADD CONSTRAINT "cluster_notes_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE CASCADE;
