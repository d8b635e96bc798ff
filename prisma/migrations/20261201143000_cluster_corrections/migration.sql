-- People correct the clustering (issue 16): grouping rules per source (their output is part of the
-- fingerprint), splits that link back to the cluster they came from, merges kept so they can be
-- undone, and bulk re-application of a source's rules in bounded batches.
ALTER TABLE "sources" ADD COLUMN "grouping_rules" JSONB,
ADD COLUMN "grouping_version" INTEGER NOT NULL DEFAULT 0;

ALTER TABLE "clusters" ADD COLUMN "split_from_id" UUID,
ADD COLUMN "grouped_by" TEXT;
ALTER TABLE "clusters" ADD CONSTRAINT "clusters_split_from_id_fkey" FOREIGN KEY ("split_from_id") REFERENCES "clusters"("id") ON DELETE SET NULL ON UPDATE CASCADE;
CREATE INDEX "clusters_split_from_id_idx" ON "clusters"("split_from_id");

CREATE TABLE "cluster_merges" (
    "id" BIGSERIAL NOT NULL,
    "survivor_id" UUID NOT NULL,
    "absorbed_id" UUID NOT NULL,
    "fingerprints" TEXT[],
    "alias_ids" UUID[],
    "merged_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "undone_at" TIMESTAMPTZ(3),
    CONSTRAINT "cluster_merges_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "cluster_merges_absorbed_id_idx" ON "cluster_merges"("absorbed_id");
CREATE INDEX "cluster_merges_survivor_id_idx" ON "cluster_merges"("survivor_id");
ALTER TABLE "cluster_merges" ADD CONSTRAINT "cluster_merges_survivor_id_fkey" FOREIGN KEY ("survivor_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "cluster_merges" ADD CONSTRAINT "cluster_merges_absorbed_id_fkey" FOREIGN KEY ("absorbed_id") REFERENCES "clusters"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "regroup_runs" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "source_id" UUID NOT NULL,
    "rule_version" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "total" INTEGER NOT NULL DEFAULT 0,
    "done" INTEGER NOT NULL DEFAULT 0,
    "moved" INTEGER NOT NULL DEFAULT 0,
    "cursor" BIGINT NOT NULL DEFAULT 0,
    "created_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    CONSTRAINT "regroup_runs_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "regroup_runs_source_id_status_idx" ON "regroup_runs"("source_id", "status");
ALTER TABLE "regroup_runs" ADD CONSTRAINT "regroup_runs_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;
