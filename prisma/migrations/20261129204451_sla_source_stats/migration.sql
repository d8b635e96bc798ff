-- CreateTable
CREATE TABLE "source_stats" (
    "source_id" UUID NOT NULL,
    "open_count" INTEGER NOT NULL DEFAULT 0,
    "oldest_dead_at" TIMESTAMPTZ(3),
    "oldest_enqueued_at" TIMESTAMPTZ(3),
    "near_deadline" INTEGER NOT NULL DEFAULT 0,
    "breached" INTEGER NOT NULL DEFAULT 0,
    "expire_undecided" INTEGER NOT NULL DEFAULT 0,
    "expiring_soon" INTEGER NOT NULL DEFAULT 0,
    "next_expiry_at" TIMESTAMPTZ(3),
    "age_histogram" JSONB NOT NULL DEFAULT '[]',
    "totals" JSONB NOT NULL DEFAULT '{}',
    "evaluated_at" TIMESTAMPTZ(3),

    CONSTRAINT "source_stats_pkey" PRIMARY KEY ("source_id")
);

-- AddForeignKey
ALTER TABLE "source_stats" ADD CONSTRAINT "source_stats_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- ── Hand-written ──────────────────────────────────────────────────────────────────────────────
-- The retention sweeper reads only open dead letters past their expiry; the plain expires_at index
-- would also walk every decided tombstone, which grows without bound.
CREATE INDEX "dead_letters_open_expiry_idx" ON "dead_letters" ("expires_at") WHERE status = 'open';
