-- The search indexer computes most payloads' searchable text in Postgres instead of shipping each
-- payload to Node and its text back (issue 19): on the ingest bench that round trip cost about
-- 50 µs of Node CPU and 10 µs of Postgres array parsing per dead letter, a quarter of the
-- indexer's CPU beside the trigram GIN inserts, on the two cores both share.
--
-- NULL means "not decided here": the indexer then runs payloadText (lib/search/search-text.ts) on
-- the payload as before. A payload of at most 4,096 bytes has at most 4,096 characters (and UTF-16
-- units), so no cut is needed, and convert_from's answer is payloadText's exactly when the bytes
-- are valid UTF-8 without NUL (convert_from rejects both) and without a leading BOM (TextDecoder
-- drops one). No table changes: existing dead_letter_search rows stay as they are.
CREATE FUNCTION "search_payload_text"(payload BYTEA, payload_size INTEGER) RETURNS TEXT
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF payload IS NULL OR payload_size > 4096 OR octet_length(payload) <> payload_size OR substring(payload FROM 1 FOR 3) = '\xefbbbf'::bytea THEN
    RETURN NULL;
  END IF;
  RETURN convert_from(payload, 'UTF8');
EXCEPTION WHEN character_not_in_repertoire OR untranslatable_character THEN
  RETURN NULL;
END $$;

-- One trigram index over both texts instead of one each: one index insertion per row instead of
-- two, and the trigrams the error text shares with the payload stored once (264 keys a row instead
-- of 284 on the ingest bench's rows). The newline keeps the last word of the error and the first of
-- the payload apart, so the index's trigrams are those of the two texts; the search
-- (lib/deadletters/query.ts) still tests each text on its own, so no match spans the two. Built
-- from the rows already there.
CREATE INDEX "dead_letter_search_text_trgm_idx" ON "dead_letter_search"
  USING gin ((coalesce("error_text", '') || E'\n' || coalesce("payload_text", '')) gin_trgm_ops);
DROP INDEX "dead_letter_search_payload_trgm_idx";
DROP INDEX "dead_letter_search_error_trgm_idx";
