-- 0005 (PostgreSQL dialect of Migrations/0005_checkouts.sql): checkouts, the payment-action
-- notification as a resource: the validated panel JSON, the status, the SHA-256 of the client
-- secret (BYTEA, 32 bytes; the secret itself is never stored) and the intent it pays with.
-- Times are BIGINT milliseconds since the epoch, UTC. No card data.

CREATE TABLE checkouts (
    id                  TEXT PRIMARY KEY NOT NULL CHECK (id ~ '^co_.'),
    status              TEXT NOT NULL CHECK (status IN ('open', 'paid', 'canceled', 'expired')),
    panel               TEXT NOT NULL CHECK (length(panel) BETWEEN 2 AND 4096 AND panel !~ '[0-9]{13}'),
    capture_method      TEXT NOT NULL CHECK (capture_method IN ('automatic', 'manual')),
    expires_at          BIGINT,
    client_secret_hash  BYTEA NOT NULL UNIQUE CHECK (octet_length(client_secret_hash) = 32),
    payment_intent_id   TEXT REFERENCES intents (id),
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL CHECK (updated_at >= created_at),
    version             BIGINT NOT NULL CHECK (version >= 1),
    CHECK (status <> 'paid' OR payment_intent_id IS NOT NULL)
);

-- The worker's sweep: open checkouts by expiry.
CREATE INDEX checkouts_due ON checkouts (expires_at, id) WHERE status = 'open' AND expires_at IS NOT NULL;
