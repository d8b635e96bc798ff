-- A personal token's scopes ("assistant": the user's MCP assistant) and how an audited actor acted.
ALTER TABLE "api_tokens" ADD COLUMN "scopes" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "audit_events" ADD COLUMN "actor_via" TEXT;
