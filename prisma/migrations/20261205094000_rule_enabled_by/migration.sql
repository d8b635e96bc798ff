-- Who last enabled a redrive rule (creating it enabled counts): four eyes refuses them as the
-- approver of a task the rule starts, as it refuses the rule's author. NULL for rules enabled before
-- this was kept.
ALTER TABLE "redrive_rules" ADD COLUMN "enabled_by_id" UUID REFERENCES "users"("id");
