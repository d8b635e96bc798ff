-- dead_letters is the table every dead letter is written to, at storm rates. Its two foreign keys
-- cost each inserted row two referential-integrity lookups, each taking a KEY SHARE row lock on the
-- source and the cluster (through MultiXacts once two batches of one source commit side by side):
-- about a sixth of Postgres's CPU per row (measured with recordDeadLetters, 1,000-row batches).
-- What they guarded is kept otherwise: the one write path (recordDeadLetters) reads the source row
-- and takes each cluster id from a cluster row it upserted and locked in the same transaction, and
-- neither a source nor a cluster is ever deleted (a merge keeps the merged row as an alias), which
-- these triggers now enforce in place of ON DELETE RESTRICT / SET NULL. (A TRUNCATE of sources or
-- clusters no longer cascades to dead_letters: name it too, as the test reset does.)
ALTER TABLE "dead_letters" DROP CONSTRAINT IF EXISTS "dead_letters_source_id_fkey";
ALTER TABLE "dead_letters" DROP CONSTRAINT IF EXISTS "dead_letters_cluster_id_fkey";

CREATE FUNCTION dead_letters_referenced_row_stays() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'a % row is never deleted: dead letters refer to it', TG_TABLE_NAME
    USING ERRCODE = 'foreign_key_violation';
END $$;
CREATE TRIGGER "sources_never_deleted" BEFORE DELETE ON "sources"
  FOR EACH ROW EXECUTE FUNCTION dead_letters_referenced_row_stays();
CREATE TRIGGER "clusters_never_deleted" BEFORE DELETE ON "clusters"
  FOR EACH ROW EXECUTE FUNCTION dead_letters_referenced_row_stays();
