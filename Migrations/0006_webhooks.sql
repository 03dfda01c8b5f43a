-- 0006: events and webhooks (issue 14). Every outbox message (0002) and every checkout that is
-- paid, expired or canceled becomes one event; each event is delivered to each matching
-- webhook endpoint with the Standard Webhooks signature, retried on a schedule, and every
-- attempt is recorded. Times are integer milliseconds since the epoch, UTC.
--
-- Endpoint signing secrets must be kept (HMAC needs the secret itself, a hash will not do):
-- they are stored sealed with AES-256-GCM under a key that is NOT in this database (a 0600
-- key file beside it), one derived key per secret version, so a copy of the database alone
-- gives no secret away. No column holds a secret, a card number or a response body.

-- A checkout's change of status, written by the trigger below in the statement that makes it,
-- so no code path can change a checkout's status without its message. The snapshot columns
-- repeat the checkout row as it was then (the client secret's hash is only a hash).
CREATE TABLE checkout_outbox (
    id                  INTEGER PRIMARY KEY,
    checkout_id         TEXT NOT NULL REFERENCES checkouts (id),
    topic               TEXT NOT NULL CHECK (topic IN ('checkout.paid', 'checkout.expired', 'checkout.canceled')),
    status              TEXT NOT NULL,
    panel               TEXT NOT NULL,
    capture_method      TEXT NOT NULL,
    expires_at          INTEGER,
    client_secret_hash  BLOB NOT NULL,
    payment_intent_id   TEXT,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    version             INTEGER NOT NULL,
    published_at        INTEGER,
    UNIQUE (checkout_id, version)
) STRICT;

CREATE INDEX checkout_outbox_unpublished ON checkout_outbox (id) WHERE published_at IS NULL;

CREATE TRIGGER checkout_status_to_outbox AFTER UPDATE OF status ON checkouts
WHEN NEW.status <> OLD.status AND NEW.status IN ('paid', 'expired', 'canceled')
BEGIN
    INSERT INTO checkout_outbox (checkout_id, topic, status, panel, capture_method, expires_at, client_secret_hash,
                                 payment_intent_id, created_at, updated_at, version)
    VALUES (NEW.id, 'checkout.' || NEW.status, NEW.status, NEW.panel, NEW.capture_method, NEW.expires_at,
            NEW.client_secret_hash, NEW.payment_intent_id, NEW.created_at, NEW.updated_at, NEW.version);
END;

-- The events merchants hear about (`events` is the payments' own history, 0002), in the order they were published (seq), each with the JSON body that is
-- delivered, fixed when published so every retry sends the same bytes.
CREATE TABLE webhook_events (
    seq          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE CHECK (id GLOB 'evt_?*'),
    type         TEXT NOT NULL CHECK (length(type) BETWEEN 3 AND 100),
    object_id    TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    source       TEXT NOT NULL CHECK (source IN ('outbox', 'checkout_outbox')),
    source_id    INTEGER NOT NULL,
    body         TEXT NOT NULL CHECK (length(body) >= 2
                     AND body NOT GLOB '*[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*'),
    UNIQUE (source, source_id)
) STRICT;

CREATE INDEX webhook_events_by_type ON webhook_events (type, seq);

CREATE TABLE webhook_endpoints (
    id                        TEXT PRIMARY KEY NOT NULL CHECK (id GLOB 'we_?*'),
    url                       TEXT NOT NULL CHECK (length(url) BETWEEN 8 AND 2048),
    -- A JSON array of event types, or ["*"].
    events                    TEXT NOT NULL CHECK (length(events) BETWEEN 2 AND 4096),
    status                    TEXT NOT NULL CHECK (status IN ('enabled', 'disabled')),
    disabled_reason           TEXT,
    secret_sealed             BLOB NOT NULL,
    secret_version            INTEGER NOT NULL CHECK (secret_version >= 1),
    -- During a rotation the previous secret still signs, until previous_expires_at.
    previous_secret_sealed    BLOB,
    previous_secret_version   INTEGER,
    previous_expires_at       INTEGER,
    created_at                INTEGER NOT NULL,
    deleted_at                INTEGER
) STRICT;

-- One event to one endpoint. `next_attempt_at` is when the relay may send it next; while an
-- attempt is in flight it is pushed past the request's timeout (a lease), so a crash between
-- sending and recording leaves it due again later: at-least-once, same webhook-id.
CREATE TABLE webhook_deliveries (
    id                  INTEGER PRIMARY KEY,
    event_id            TEXT NOT NULL REFERENCES webhook_events (id),
    endpoint_id         TEXT NOT NULL REFERENCES webhook_endpoints (id),
    status              TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts            INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at     INTEGER,
    last_response_code  INTEGER,
    last_error          TEXT,
    updated_at          INTEGER NOT NULL,
    UNIQUE (event_id, endpoint_id),
    CHECK (status <> 'pending' OR next_attempt_at IS NOT NULL)
) STRICT;

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';

-- Every attempt: when, how long, what came back. Never the secret, the signature or a body.
CREATE TABLE webhook_attempts (
    id             INTEGER PRIMARY KEY,
    delivery_id    INTEGER NOT NULL REFERENCES webhook_deliveries (id),
    attempt        INTEGER NOT NULL CHECK (attempt >= 1),
    started_at     INTEGER NOT NULL,
    duration_ms    INTEGER NOT NULL CHECK (duration_ms >= 0),
    response_code  INTEGER,
    outcome        TEXT NOT NULL CHECK (outcome IN ('delivered', 'retry', 'failed', 'disabled')),
    error          TEXT CHECK (length(error) <= 300)
) STRICT;

CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_id, attempt);
