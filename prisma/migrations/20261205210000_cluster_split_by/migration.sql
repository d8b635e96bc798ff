-- A split stays split for new arrivals: the cluster a person split keeps what it was split by and
-- where each split-off value went (lib/clustering/split-routes.ts), as a list, one entry per split.
-- Splits made before this column keep sending new arrivals to the cluster that kept the id.
ALTER TABLE "clusters" ADD COLUMN "split_by" JSONB;
