-- The rate alarm's thresholds per source (they were constants: 10 and 50 in 5 minutes, still the
-- defaults). A busy source's normal trickle no longer keeps its rate alarm PENDING.
ALTER TABLE "sources" ADD COLUMN "alarm_rate_alarm" INTEGER NOT NULL DEFAULT 50,
ADD COLUMN "alarm_rate_pending" INTEGER NOT NULL DEFAULT 10;

ALTER TABLE "sources" ADD CONSTRAINT "sources_alarm_rate_order" CHECK ("alarm_rate_pending" >= 1 AND "alarm_rate_alarm" > "alarm_rate_pending");
