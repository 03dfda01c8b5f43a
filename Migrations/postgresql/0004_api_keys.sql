-- 0004 (PostgreSQL dialect of Migrations/0004_api_keys.sql): secret API keys for the HTTP API.
-- Only the SHA-256 of a key is kept (hex, 64 characters): the key itself is shown once, when
-- it is created, and can never be read back. A revoked key keeps its row (revoked_at set).
-- Times are BIGINT milliseconds since the epoch, UTC.

CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY CHECK (length(id) BETWEEN 5 AND 64),
    name       TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    key_hash   TEXT NOT NULL UNIQUE CHECK (length(key_hash) = 64),
    created_at BIGINT NOT NULL,
    revoked_at BIGINT,
    CHECK (revoked_at IS NULL OR revoked_at >= created_at)
);
