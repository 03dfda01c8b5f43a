-- paypanel: rebuilds tables
-- (The line above makes the migrator run this file with foreign keys off and check every
-- reference before it commits: SQLite's procedure for changing a table's constraints.)
--
-- 0008: one rule for card numbers in text, and metadata.
--
-- Until now free-text columns refused any run of 13 digits with a CHECK (`NOT GLOB
-- '*[0-9]…[0-9]*'`). That refused ordinary values the program accepts ("order-1234567890123",
-- a nanosecond timestamp in an event's metadata, a processor id with 13 digits) with a
-- constraint failure, i.e. an HTTP 500. The rule is now one function in the program
-- (`SensitiveDigits`: 13 to 19 digits that pass the Luhn check, contiguous or in groups): every
-- free text is refused by it with a 400 naming the field, every processor text redacted by it,
-- before anything is written. A CHECK cannot run the Luhn check (no loops, no subqueries; an
-- application-defined function would make the file unwritable by any other SQLite program) and
-- anything it can say about digits refuses values that are not card numbers, so the digit
-- CHECKs are dropped rather than repeated; the other CHECKs stay as they were.
--
-- SQLite cannot drop a CHECK in place: each table is rebuilt (create the new one, copy the rows
-- with their rowids, drop the old one, rename), and its indexes and triggers made again.
--
-- Metadata: `intents.metadata` and `checkouts.metadata` hold the merchant's key-value pairs as a
-- JSON object written by the library's JSONWriter ('{}' for none); `checkout_outbox.metadata`
-- keeps them in the checkout's snapshot, so a checkout event carries them.
--
-- Idempotency keys keep their column: a key holding a card number is stored as its digest
-- (`IdempotencyStore.storedKey`), and the rows already here passed the old rule, so they hold
-- none and keep their form.

-- intents ---------------------------------------------------------------------------------
CREATE TABLE intents_new (
    id                      TEXT PRIMARY KEY NOT NULL CHECK (id GLOB 'pi_?*'),
    status                  TEXT NOT NULL CHECK (status IN (
                                'requires_payment_method', 'requires_action', 'processing',
                                'requires_capture', 'requires_merchant_action',
                                'succeeded', 'canceled', 'expired')),
    amount                  INTEGER NOT NULL CHECK (amount > 0),
    currency                TEXT NOT NULL CHECK (length(currency) = 3 AND currency NOT GLOB '*[^A-Z]*'),
    capture_method          TEXT NOT NULL CHECK (capture_method IN ('automatic', 'manual')),
    order_reference         TEXT CHECK (length(order_reference) BETWEEN 1 AND 200),
    amount_authorized       INTEGER NOT NULL DEFAULT 0,
    amount_captured         INTEGER NOT NULL DEFAULT 0,
    amount_refunded         INTEGER NOT NULL DEFAULT 0,   -- succeeded refunds
    amount_refund_pending   INTEGER NOT NULL DEFAULT 0,   -- refunds not yet final (reserved)
    capture_before          INTEGER,
    attempt_count           INTEGER NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
    current_attempt_id      TEXT,
    -- The processor call in flight (status 'processing' exactly when one is).
    in_flight_operation     TEXT CHECK (in_flight_operation IN ('authorize', 'complete_challenge', 'capture', 'void')),
    in_flight_attempt_id    TEXT,
    in_flight_amount        INTEGER CHECK (in_flight_amount > 0),
    in_flight_void_purpose  TEXT CHECK (in_flight_void_purpose IN ('cancel', 'reversal')),
    in_flight_started_at    INTEGER,
    outcome_unknown_since   INTEGER,
    reconciliation_lookups  INTEGER NOT NULL DEFAULT 0 CHECK (reconciliation_lookups >= 0),
    processor_retries       INTEGER NOT NULL DEFAULT 0 CHECK (processor_retries >= 0),
    last_error_code         TEXT,
    last_error_decline_code TEXT,
    last_error_message      TEXT,
    last_error_attempt_id   TEXT,
    cancellation_reason     TEXT CHECK (cancellation_reason IN (
                                'requested_by_customer', 'duplicate', 'fraudulent', 'abandoned', 'operator')),
    version                 INTEGER NOT NULL CHECK (version >= 1),
    created_at              INTEGER NOT NULL,
    updated_at              INTEGER NOT NULL,
    -- At most 50 keys of 40 characters and values of 500 (`Metadata`): about 27,000 characters.
    metadata                TEXT NOT NULL DEFAULT '{}' CHECK (length(metadata) BETWEEN 2 AND 60000),
    CHECK (0 <= amount_captured AND amount_captured <= amount_authorized AND amount_authorized <= amount),
    CHECK (amount_refunded >= 0 AND amount_refund_pending >= 0
           AND amount_refunded + amount_refund_pending <= amount_captured),
    CHECK ((status = 'processing') = (in_flight_operation IS NOT NULL)),
    CHECK ((in_flight_operation IS NULL) = (in_flight_attempt_id IS NULL)),
    CHECK ((in_flight_operation IS NULL) = (in_flight_amount IS NULL)),
    CHECK ((in_flight_operation IS NULL) = (in_flight_started_at IS NULL)),
    CHECK (in_flight_operation IS NOT NULL OR (outcome_unknown_since IS NULL AND reconciliation_lookups = 0 AND processor_retries = 0)),
    CHECK ((in_flight_operation = 'void') = (in_flight_void_purpose IS NOT NULL)),
    CHECK (status <> 'requires_capture' OR (amount_authorized > amount_captured AND capture_before IS NOT NULL)),
    CHECK (status <> 'succeeded' OR amount_captured > 0),
    CHECK (status NOT IN ('requires_payment_method', 'requires_action', 'requires_capture', 'processing')
           OR amount_captured = 0),
    -- A cancel of an authorized intent keeps its reason while the void is in flight.
    CHECK (status <> 'canceled' OR cancellation_reason IS NOT NULL),
    CHECK (status IN ('canceled', 'processing') OR cancellation_reason IS NULL)
) STRICT;

INSERT INTO intents_new (
    rowid, id, status, amount, currency, capture_method, order_reference, amount_authorized, amount_captured,
    amount_refunded, amount_refund_pending, capture_before, attempt_count, current_attempt_id, in_flight_operation,
    in_flight_attempt_id, in_flight_amount, in_flight_void_purpose, in_flight_started_at, outcome_unknown_since,
    reconciliation_lookups, processor_retries, last_error_code, last_error_decline_code, last_error_message,
    last_error_attempt_id, cancellation_reason, version, created_at, updated_at)
SELECT
    rowid, id, status, amount, currency, capture_method, order_reference, amount_authorized, amount_captured,
    amount_refunded, amount_refund_pending, capture_before, attempt_count, current_attempt_id, in_flight_operation,
    in_flight_attempt_id, in_flight_amount, in_flight_void_purpose, in_flight_started_at, outcome_unknown_since,
    reconciliation_lookups, processor_retries, last_error_code, last_error_decline_code, last_error_message,
    last_error_attempt_id, cancellation_reason, version, created_at, updated_at
FROM intents;

DROP TABLE intents;
ALTER TABLE intents_new RENAME TO intents;

CREATE INDEX intents_by_created ON intents (created_at DESC, id DESC);
CREATE INDEX intents_by_status ON intents (status, created_at DESC, id DESC);

CREATE TRIGGER intents_terminal_states_are_final
BEFORE UPDATE ON intents
WHEN OLD.status IN ('canceled', 'expired')
  OR (OLD.status = 'succeeded' AND (NEW.status <> 'succeeded' OR NEW.amount_captured <> OLD.amount_captured))
BEGIN
    SELECT RAISE(ABORT, 'a canceled, expired or succeeded payment intent cannot change state');
END;

CREATE TRIGGER intents_version_moves_by_one
BEFORE UPDATE ON intents
WHEN NEW.version <> OLD.version + 1 OR NEW.id <> OLD.id OR NEW.amount <> OLD.amount OR NEW.currency <> OLD.currency
BEGIN
    SELECT RAISE(ABORT, 'an intent update must raise its version by one and keep its id, amount and currency');
END;

CREATE TRIGGER intents_are_never_deleted
BEFORE DELETE ON intents
BEGIN
    SELECT RAISE(ABORT, 'payment intents are never deleted');
END;

-- attempts --------------------------------------------------------------------------------
CREATE TABLE attempts_new (
    id               TEXT PRIMARY KEY NOT NULL CHECK (id GLOB 'att_?*'),
    intent_id        TEXT NOT NULL REFERENCES intents (id),
    sequence         INTEGER NOT NULL CHECK (sequence >= 1),
    status           TEXT NOT NULL CHECK (status IN (
                         'authorizing', 'requires_action', 'authorized', 'captured',
                         'failed', 'voided', 'expired')),
    source           TEXT NOT NULL CHECK (source IN ('apple_pay', 'card')),
    network          TEXT CHECK (network NOT GLOB '*[^A-Za-z]*' AND length(network) BETWEEN 1 AND 32),
    card_last4       TEXT NOT NULL CHECK (length(card_last4) = 4 AND card_last4 NOT GLOB '*[^0-9]*'),
    expiry_month     INTEGER CHECK (expiry_month BETWEEN 1 AND 12),
    expiry_year      INTEGER CHECK (expiry_year BETWEEN 2000 AND 2999),
    eci_present      INTEGER NOT NULL CHECK (eci_present IN (0, 1)),
    amount           INTEGER NOT NULL CHECK (amount > 0),
    currency         TEXT NOT NULL CHECK (length(currency) = 3 AND currency NOT GLOB '*[^A-Z]*'),
    approved_amount  INTEGER CHECK (approved_amount >= 0),
    approved_currency TEXT CHECK (length(approved_currency) = 3),
    processor_id     TEXT,
    failure_code     TEXT,
    decline_code     TEXT,
    failure_message  TEXT,
    sheet_status     TEXT CHECK (sheet_status IN ('awaiting_answer', 'answered_success', 'answered_failure')),
    sheet_deadline   INTEGER,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    UNIQUE (intent_id, sequence),
    CHECK ((sheet_status IS NULL) = (sheet_deadline IS NULL)),
    CHECK ((failure_code IS NULL) = (failure_message IS NULL))
) STRICT;

INSERT INTO attempts_new (
    rowid, id, intent_id, sequence, status, source, network, card_last4, expiry_month, expiry_year, eci_present, amount,
    currency, approved_amount, approved_currency, processor_id, failure_code, decline_code, failure_message,
    sheet_status, sheet_deadline, created_at, updated_at)
SELECT
    rowid, id, intent_id, sequence, status, source, network, card_last4, expiry_month, expiry_year, eci_present, amount,
    currency, approved_amount, approved_currency, processor_id, failure_code, decline_code, failure_message,
    sheet_status, sheet_deadline, created_at, updated_at
FROM attempts;

DROP TABLE attempts;
ALTER TABLE attempts_new RENAME TO attempts;

CREATE INDEX attempts_by_intent ON attempts (intent_id, sequence);

-- refunds (read in created_at, rowid order: the rowids are copied) ------------------------
CREATE TABLE refunds_new (
    id                     TEXT PRIMARY KEY NOT NULL CHECK (id GLOB 're_?*'),
    intent_id              TEXT NOT NULL REFERENCES intents (id),
    attempt_id             TEXT NOT NULL REFERENCES attempts (id),
    amount                 INTEGER NOT NULL CHECK (amount > 0),
    currency               TEXT NOT NULL CHECK (length(currency) = 3 AND currency NOT GLOB '*[^A-Z]*'),
    status                 TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'requires_merchant_action')),
    reason                 TEXT CHECK (reason IN ('requested_by_customer', 'duplicate', 'fraudulent', 'reversal')),
    processor_accepted     INTEGER NOT NULL DEFAULT 0 CHECK (processor_accepted IN (0, 1)),
    processor_id           TEXT,
    failure_code           TEXT,
    outcome_unknown_since  INTEGER,
    reconciliation_lookups INTEGER NOT NULL DEFAULT 0 CHECK (reconciliation_lookups >= 0),
    processor_retries      INTEGER NOT NULL DEFAULT 0 CHECK (processor_retries >= 0),
    created_at             INTEGER NOT NULL,
    updated_at             INTEGER NOT NULL
) STRICT;

INSERT INTO refunds_new (
    rowid, id, intent_id, attempt_id, amount, currency, status, reason, processor_accepted, processor_id, failure_code,
    outcome_unknown_since, reconciliation_lookups, processor_retries, created_at, updated_at)
SELECT
    rowid, id, intent_id, attempt_id, amount, currency, status, reason, processor_accepted, processor_id, failure_code,
    outcome_unknown_since, reconciliation_lookups, processor_retries, created_at, updated_at
FROM refunds;

DROP TABLE refunds;
ALTER TABLE refunds_new RENAME TO refunds;

CREATE INDEX refunds_by_intent ON refunds (intent_id, created_at);

-- events (append-only: its triggers are made again after the copy) -----------------------
CREATE TABLE events_new (
    intent_id   TEXT NOT NULL REFERENCES intents (id),
    version     INTEGER NOT NULL CHECK (version >= 1),
    type        TEXT NOT NULL,
    from_status TEXT,
    to_status   TEXT NOT NULL,
    data        TEXT NOT NULL,
    occurred_at INTEGER NOT NULL,
    PRIMARY KEY (intent_id, version)
) STRICT, WITHOUT ROWID;

INSERT INTO events_new (intent_id, version, type, from_status, to_status, data, occurred_at)
SELECT intent_id, version, type, from_status, to_status, data, occurred_at FROM events;

DROP TABLE events;
ALTER TABLE events_new RENAME TO events;

CREATE TRIGGER events_are_append_only_update
BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'the event history is append-only');
END;

CREATE TRIGGER events_are_append_only_delete
BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'the event history is append-only');
END;

-- idempotency_keys -------------------------------------------------------------------------
CREATE TABLE idempotency_keys_new (
    key           TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    scope         TEXT NOT NULL,
    request_hash  TEXT NOT NULL CHECK (length(request_hash) = 64),
    status        TEXT NOT NULL CHECK (status IN ('in_progress', 'completed')),
    outcome       TEXT CHECK (outcome IN ('succeeded', 'failed')),
    response      TEXT,
    error_code    TEXT,
    error_message TEXT,
    resource_id   TEXT,
    created_at    INTEGER NOT NULL,
    locked_at     INTEGER,
    completed_at  INTEGER,
    PRIMARY KEY (key, scope),
    CHECK ((status = 'completed') = (outcome IS NOT NULL AND completed_at IS NOT NULL)),
    CHECK ((status = 'in_progress') = (locked_at IS NOT NULL)),
    CHECK (outcome <> 'failed' OR error_code IS NOT NULL)
) STRICT, WITHOUT ROWID;

INSERT INTO idempotency_keys_new (
    key, scope, request_hash, status, outcome, response, error_code, error_message, resource_id, created_at, locked_at,
    completed_at)
SELECT
    key, scope, request_hash, status, outcome, response, error_code, error_message, resource_id, created_at, locked_at,
    completed_at
FROM idempotency_keys;

DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_new RENAME TO idempotency_keys;

CREATE INDEX idempotency_keys_by_created ON idempotency_keys (created_at);

-- checkouts (its status trigger writes checkout_outbox, which now keeps the metadata) -----
CREATE TABLE checkouts_new (
    id                  TEXT PRIMARY KEY NOT NULL CHECK (id GLOB 'co_?*'),
    status              TEXT NOT NULL CHECK (status IN ('open', 'paid', 'canceled', 'expired')),
    panel               TEXT NOT NULL CHECK (length(panel) BETWEEN 2 AND 4096),
    capture_method      TEXT NOT NULL CHECK (capture_method IN ('automatic', 'manual')),
    expires_at          INTEGER,
    client_secret_hash  BLOB NOT NULL UNIQUE CHECK (length(client_secret_hash) = 32),
    payment_intent_id   TEXT REFERENCES intents (id),
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL CHECK (updated_at >= created_at),
    version             INTEGER NOT NULL CHECK (version >= 1),
    metadata            TEXT NOT NULL DEFAULT '{}' CHECK (length(metadata) BETWEEN 2 AND 60000),
    CHECK (status <> 'paid' OR payment_intent_id IS NOT NULL)
) STRICT;

INSERT INTO checkouts_new (
    rowid, id, status, panel, capture_method, expires_at, client_secret_hash, payment_intent_id, created_at, updated_at,
    version)
SELECT
    rowid, id, status, panel, capture_method, expires_at, client_secret_hash, payment_intent_id, created_at, updated_at,
    version
FROM checkouts;

DROP TABLE checkouts;
ALTER TABLE checkouts_new RENAME TO checkouts;

CREATE INDEX checkouts_due ON checkouts (expires_at, id) WHERE status = 'open' AND expires_at IS NOT NULL;

ALTER TABLE checkout_outbox ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';

CREATE TRIGGER checkout_status_to_outbox AFTER UPDATE OF status ON checkouts
WHEN NEW.status <> OLD.status AND NEW.status IN ('paid', 'expired', 'canceled')
BEGIN
    INSERT INTO checkout_outbox (checkout_id, topic, status, panel, capture_method, expires_at, client_secret_hash,
                                 payment_intent_id, created_at, updated_at, version, metadata)
    VALUES (NEW.id, 'checkout.' || NEW.status, NEW.status, NEW.panel, NEW.capture_method, NEW.expires_at,
            NEW.client_secret_hash, NEW.payment_intent_id, NEW.created_at, NEW.updated_at, NEW.version, NEW.metadata);
END;

-- webhook_events (seq is its rowid, copied) ------------------------------------------------
CREATE TABLE webhook_events_new (
    seq          INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE CHECK (id GLOB 'evt_?*'),
    type         TEXT NOT NULL CHECK (length(type) BETWEEN 3 AND 100),
    object_id    TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    source       TEXT NOT NULL CHECK (source IN ('outbox', 'checkout_outbox')),
    source_id    INTEGER NOT NULL,
    body         TEXT NOT NULL CHECK (length(body) >= 2),
    UNIQUE (source, source_id)
) STRICT;

INSERT INTO webhook_events_new (seq, id, type, object_id, created_at, source, source_id, body)
SELECT seq, id, type, object_id, created_at, source, source_id, body FROM webhook_events;

DROP TABLE webhook_events;
ALTER TABLE webhook_events_new RENAME TO webhook_events;

CREATE INDEX webhook_events_by_type ON webhook_events (type, seq);

-- push_deliveries (id is its rowid, copied) ------------------------------------------------
CREATE TABLE push_deliveries_new (
    id               INTEGER PRIMARY KEY,
    apns_id          TEXT NOT NULL UNIQUE CHECK (length(apns_id) = 36),
    device_id        TEXT NOT NULL REFERENCES devices (id),
    checkout_id      TEXT REFERENCES checkouts (id),
    collapse_id      TEXT CHECK (collapse_id IS NULL OR length(collapse_id) BETWEEN 1 AND 64),
    payload          TEXT NOT NULL CHECK (length(payload) BETWEEN 2 AND 4096),
    expires_at       INTEGER,
    status           TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'device_dead', 'skipped')),
    reason           TEXT CHECK (reason IS NULL OR length(reason) BETWEEN 1 AND 500),
    attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at  INTEGER,
    claimed_until    INTEGER,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL CHECK (updated_at >= created_at),
    CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
) STRICT;

INSERT INTO push_deliveries_new (
    id, apns_id, device_id, checkout_id, collapse_id, payload, expires_at, status, reason, attempts, next_attempt_at,
    claimed_until, created_at, updated_at)
SELECT
    id, apns_id, device_id, checkout_id, collapse_id, payload, expires_at, status, reason, attempts, next_attempt_at,
    claimed_until, created_at, updated_at
FROM push_deliveries;

DROP TABLE push_deliveries;
ALTER TABLE push_deliveries_new RENAME TO push_deliveries;

CREATE INDEX push_deliveries_due ON push_deliveries (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX push_deliveries_checkout ON push_deliveries (checkout_id, id) WHERE checkout_id IS NOT NULL;
