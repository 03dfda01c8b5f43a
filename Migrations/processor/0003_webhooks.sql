-- 0003: webhooks the mock processor sends (docs/mock-processor.md, "Webhooks"). Endpoints are
-- registered per account (per sk_test_ key; the account tag is kept, never the key). Each event
-- is stored exactly as it is signed, and one delivery row per matching endpoint says whether it
-- still has to go out: that row is the durability, so a restart re-sends what was not delivered.

CREATE TABLE webhook_endpoints (
    id             TEXT PRIMARY KEY NOT NULL,      -- we_…
    account        TEXT NOT NULL,                  -- acct_… (the key's tag)
    url            TEXT NOT NULL,
    enabled_events TEXT NOT NULL,                  -- the types, comma-separated, or '*'
    sealed_secret  BLOB NOT NULL,                  -- whsec_… sealed under <ledger>.webhook-key
    description    TEXT,
    created_at     INTEGER NOT NULL                -- epoch ms, on the account's clock
) STRICT;

CREATE INDEX webhook_endpoints_by_account ON webhook_endpoints (account, created_at);

CREATE TABLE webhook_events (
    id         TEXT PRIMARY KEY NOT NULL,          -- evt_…
    account    TEXT NOT NULL,
    type       TEXT NOT NULL,
    body       BLOB NOT NULL,                      -- the event JSON, byte for byte as signed; last4 only, never a card number
    created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX webhook_events_by_account ON webhook_events (account);

CREATE TABLE webhook_deliveries (
    event_id        TEXT NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    endpoint_id     TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL CHECK (attempts >= 0),
    next_attempt_at INTEGER NOT NULL,              -- epoch ms, on the account's clock
    last_status     INTEGER,                       -- the last answer's HTTP status
    last_error      TEXT,                          -- or why there was none (never a secret or a body)
    PRIMARY KEY (event_id, endpoint_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
