-- Saved views (issue 17): the filters of the dead-letter list, the inbox or the audit trail under a
-- name, private or shared with the owner's team. A user's names are unique per page.
CREATE TABLE "saved_views" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "owner_id" UUID NOT NULL,
    "team_id" UUID,
    "page" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "filters" TEXT NOT NULL,
    "shared" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "saved_views_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "saved_views_page_check" CHECK ("page" IN ('dead_letters', 'inbox', 'audit'))
);
CREATE UNIQUE INDEX "saved_views_owner_id_page_name_key" ON "saved_views"("owner_id", "page", "name");
CREATE INDEX "saved_views_team_id_shared_idx" ON "saved_views"("team_id", "shared");
ALTER TABLE "saved_views" ADD CONSTRAINT "saved_views_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
-- Shared is read as shared with team_id: a view whose team is gone is its owner's alone.
ALTER TABLE "saved_views" ADD CONSTRAINT "saved_views_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE SET NULL ON UPDATE CASCADE;
