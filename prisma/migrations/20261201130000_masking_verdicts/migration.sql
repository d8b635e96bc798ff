-- Masking verdicts (issue 15): whether a dead letter's payload, and its headers / error text, hold a
-- masked value, decided once at write time with the detectors and the source's sensitive paths, so
-- search, lists, exports and the API agree. NULL is "not decided yet" and counts as masked.
ALTER TABLE "dead_letters" ADD COLUMN "payload_masked" BOOLEAN,
ADD COLUMN "text_masked" BOOLEAN;

-- The verdicts of a source's dead letters from this id on are being recomputed in bounded batches
-- by the maintenance worker (lib/masking/recompute-verdicts.ts); until then they count as masked.
ALTER TABLE "sources" ADD COLUMN "masking_recompute_from" BIGINT;

-- Backfill: every existing dead letter is decided by the same bounded job, from the first id on.
UPDATE "sources" SET "masking_recompute_from" = 0 WHERE EXISTS (SELECT 1 FROM "dead_letters" d WHERE d."source_id" = "sources"."id");
