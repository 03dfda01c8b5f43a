-- 0005: checkouts (issue 12), the payment-action notification as a resource. A row is one
-- panel offered to a payer: its validated panel JSON (written by the library's JSONWriter,
-- camelCase as in the push payload's `panel` key), its status, the SHA-256 of its client
-- secret (the secret itself is shown once and never stored), and the intent it pays with.
-- Times are integer milliseconds since the epoch, UTC; money (inside the panel) is minor
-- units. No card data: the pay call's card or token lives in memory only, on the intent's
-- attempt. 0004 is left to the API keys migration written beside this one.

CREATE TABLE checkouts (
    id                  TEXT PRIMARY KEY NOT NULL CHECK (id GLOB 'co_?*'),
    status              TEXT NOT NULL CHECK (status IN ('open', 'paid', 'canceled', 'expired')),
    panel               TEXT NOT NULL CHECK (length(panel) BETWEEN 2 AND 4096
                            AND panel NOT GLOB '*[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*'),
    capture_method      TEXT NOT NULL CHECK (capture_method IN ('automatic', 'manual')),
    expires_at          INTEGER,
    client_secret_hash  BLOB NOT NULL UNIQUE CHECK (length(client_secret_hash) = 32),
    payment_intent_id   TEXT REFERENCES intents (id),
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL CHECK (updated_at >= created_at),
    version             INTEGER NOT NULL CHECK (version >= 1),
    CHECK (status <> 'paid' OR payment_intent_id IS NOT NULL)
) STRICT;

-- The worker's sweep: open checkouts by expiry.
CREATE INDEX checkouts_due ON checkouts (expires_at, id) WHERE status = 'open' AND expires_at IS NOT NULL;
