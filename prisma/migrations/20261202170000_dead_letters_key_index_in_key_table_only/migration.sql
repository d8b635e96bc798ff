-- The (source, message id, generation) key is unique in dead_letter_keys, which every lookup by key
-- (idempotency, generations, redrive outcomes, the list's message-id filter) now reads; the same
-- index on dead_letters served nothing else and cost every insert a btree entry.
DROP INDEX IF EXISTS "dead_letters_source_id_message_id_generation_idx";
