-- search_payload_text catches convert_from's errors in an EXCEPTION block, which starts a
-- subtransaction, and a parallel worker may not start one: labelled PARALLEL SAFE, any query the
-- planner ran in parallel (a large table) failed with "cannot start subtransactions during a
-- parallel operation". PostgreSQL's rule for such functions is PARALLEL UNSAFE. The indexer's
-- statement writes (DELETE … RETURNING), so it never ran in parallel and keeps its plan.
ALTER FUNCTION "search_payload_text"(BYTEA, INTEGER) PARALLEL UNSAFE;
