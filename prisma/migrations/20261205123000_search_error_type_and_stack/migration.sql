-- Search finds what the page shows: the searchable error text is the error type, the message and the
-- head of the stack (its frames), one per line, not the message alone. One definition, used by the
-- search indexer and by a discard (which rewrites the row); the rows already indexed are rewritten.
CREATE FUNCTION search_error_text(error_type text, error_message text, error_stack text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN concat_ws(E'\n', error_type, error_message, left(error_stack, 4096));

UPDATE "dead_letter_search" s SET "error_text" = search_error_text(k.error_type, k.error_message, k.error_stack)
FROM (SELECT d."id", d."error_type", d."error_message", d."error_stack" FROM "dead_letters" d) k
WHERE k."id" = s."dead_letter_id";
