-- AlterTable
ALTER TABLE "clusters" ADD COLUMN     "pattern" TEXT,
ADD COLUMN     "shape" TEXT;

-- CreateTable
CREATE TABLE "cluster_hours" (
    "cluster_id" UUID NOT NULL,
    "source_id" UUID NOT NULL,
    "hour" TIMESTAMPTZ(0) NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "cluster_hours_pkey" PRIMARY KEY ("cluster_id","source_id","hour")
);

-- CreateIndex
CREATE INDEX "clusters_shape_idx" ON "clusters"("shape");

-- AddForeignKey
ALTER TABLE "cluster_hours" ADD CONSTRAINT "cluster_hours_cluster_id_fkey" FOREIGN KEY ("cluster_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- ── Hand-written ──────────────────────────────────────────────────────────────────────────────
-- Clusters and dead letters recorded before this migration: the same shape as lib/clustering
-- computes at ingest (md5 of error type, \x01, top frame), and their hourly counts.
UPDATE "clusters" SET "shape" = md5(coalesce("error_type", '') || chr(1) || coalesce("top_frame", ''));
INSERT INTO "cluster_hours" ("cluster_id", "source_id", "hour", "count")
SELECT "cluster_id", "source_id", date_trunc('hour', "dead_at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)::int
FROM "dead_letters" WHERE "cluster_id" IS NOT NULL
GROUP BY 1, 2, 3;
