-- 0002: payment intents, their attempts and refunds, the append-only event history, the
-- transactional outbox, the processor inbox, timers, idempotency keys and the Apple Pay
-- transactionId replay guard (DESIGN §4, docs/state-machine.md).
--
-- Money is integer minor units beside an ISO 4217 code. Times are milliseconds since the
-- epoch, UTC. No column can hold a card number or a cryptogram: attempts keep the network,
-- the last four digits, the expiry and whether an ECI was present; free-text columns refuse
-- runs of 13 or more digits. The CHECK constraints and triggers repeat the state machine's
-- invariants so that a bug in the program cannot write a state the machine forbids.
-- Shipped migrations are never edited: add 0004_... instead.

CREATE TABLE intents (
    id                      TEXT PRIMARY KEY NOT NULL CHECK (id GLOB 'pi_?*'),
    status                  TEXT NOT NULL CHECK (status IN (
                                'requires_payment_method', 'requires_action', 'processing',
                                'requires_capture', 'requires_merchant_action',
                                'succeeded', 'canceled', 'expired')),
    amount                  INTEGER NOT NULL CHECK (amount > 0),
    currency                TEXT NOT NULL CHECK (length(currency) = 3 AND currency NOT GLOB '*[^A-Z]*'),
    capture_method          TEXT NOT NULL CHECK (capture_method IN ('automatic', 'manual')),
    order_reference         TEXT CHECK (length(order_reference) BETWEEN 1 AND 200
                                        AND order_reference NOT GLOB '*[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*'),
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
    last_error_message      TEXT CHECK (last_error_message NOT GLOB '*[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*'),
    last_error_attempt_id   TEXT,
    cancellation_reason     TEXT CHECK (cancellation_reason IN (
                                'requested_by_customer', 'duplicate', 'fraudulent', 'abandoned', 'operator')),
    version                 INTEGER NOT NULL CHECK (version >= 1),
    created_at              INTEGER NOT NULL,
    updated_at              INTEGER NOT NULL,
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

-- `payments list` pages newest first, optionally by status, without sorting in memory.
CREATE INDEX intents_by_created ON intents (created_at DESC, id DESC);
CREATE INDEX intents_by_status ON intents (status, created_at DESC, id DESC);

-- Terminal states never change; a succeeded intent only moves money on its refund ledger.
CREATE TRIGGER intents_terminal_states_are_final
BEFORE UPDATE ON intents
WHEN OLD.status IN ('canceled', 'expired')
  OR (OLD.status = 'succeeded' AND (NEW.status <> 'succeeded' OR NEW.amount_captured <> OLD.amount_captured))
BEGIN
    SELECT RAISE(ABORT, 'a canceled, expired or succeeded payment intent cannot change state');
END;

-- Every change of an intent is one version: optimistic concurrency and the event history agree.
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

-- One row per authorization try. Only what may be kept about the card: the network, the last
-- four digits, the expiry month/year and whether the token carried an ECI.
CREATE TABLE attempts (
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
    processor_id     TEXT CHECK (processor_id NOT GLOB '*[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*'),
    failure_code     TEXT,
    decline_code     TEXT,
    failure_message  TEXT CHECK (failure_message NOT GLOB '*[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*'),
    sheet_status     TEXT CHECK (sheet_status IN ('awaiting_answer', 'answered_success', 'answered_failure')),
    sheet_deadline   INTEGER,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    UNIQUE (intent_id, sequence),
    CHECK ((sheet_status IS NULL) = (sheet_deadline IS NULL)),
    CHECK ((failure_code IS NULL) = (failure_message IS NULL))
) STRICT;

CREATE INDEX attempts_by_intent ON attempts (intent_id, sequence);

-- Refunds of a captured intent: partial and several; the sum of pending and succeeded refunds
-- never exceeds the captured amount (intents CHECK above, and the machine's guard).
CREATE TABLE refunds (
    id                     TEXT PRIMARY KEY NOT NULL CHECK (id GLOB 're_?*'),
    intent_id              TEXT NOT NULL REFERENCES intents (id),
    attempt_id             TEXT NOT NULL REFERENCES attempts (id),
    amount                 INTEGER NOT NULL CHECK (amount > 0),
    currency               TEXT NOT NULL CHECK (length(currency) = 3 AND currency NOT GLOB '*[^A-Z]*'),
    status                 TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'requires_merchant_action')),
    reason                 TEXT CHECK (reason IN ('requested_by_customer', 'duplicate', 'fraudulent', 'reversal')),
    processor_accepted     INTEGER NOT NULL DEFAULT 0 CHECK (processor_accepted IN (0, 1)),
    processor_id           TEXT CHECK (processor_id NOT GLOB '*[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*'),
    failure_code           TEXT,
    outcome_unknown_since  INTEGER,
    reconciliation_lookups INTEGER NOT NULL DEFAULT 0 CHECK (reconciliation_lookups >= 0),
    processor_retries      INTEGER NOT NULL DEFAULT 0 CHECK (processor_retries >= 0),
    created_at             INTEGER NOT NULL,
    updated_at             INTEGER NOT NULL
) STRICT;

CREATE INDEX refunds_by_intent ON refunds (intent_id, created_at);

-- The history of every intent: one row per accepted event, numbered by the intent's version.
-- Append-only: the triggers below refuse updates and deletes.
CREATE TABLE events (
    intent_id   TEXT NOT NULL REFERENCES intents (id),
    version     INTEGER NOT NULL CHECK (version >= 1),
    type        TEXT NOT NULL,
    from_status TEXT,
    to_status   TEXT NOT NULL,
    data        TEXT NOT NULL CHECK (data NOT GLOB '*[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*'),
    occurred_at INTEGER NOT NULL,
    PRIMARY KEY (intent_id, version)
) STRICT, WITHOUT ROWID;

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

-- Messages for the outside world (webhooks), written in the same transaction as the change
-- they announce, delivered later by a relay.
CREATE TABLE outbox (
    id                INTEGER PRIMARY KEY,
    intent_id         TEXT NOT NULL REFERENCES intents (id),
    intent_version    INTEGER NOT NULL,
    topic             TEXT NOT NULL,
    refund_id         TEXT REFERENCES refunds (id),
    payload           TEXT NOT NULL,
    created_at        INTEGER NOT NULL,
    delivered_at      INTEGER,
    delivery_attempts INTEGER NOT NULL DEFAULT 0 CHECK (delivery_attempts >= 0),
    UNIQUE (intent_id, intent_version, topic)
) STRICT;

CREATE INDEX outbox_undelivered ON outbox (id) WHERE delivered_at IS NULL;

-- Processor events (webhooks, ledger notices) already processed: each is handled once.
CREATE TABLE inbox (
    source       TEXT NOT NULL,
    event_id     TEXT NOT NULL,
    intent_id    TEXT REFERENCES intents (id),
    received_at  INTEGER NOT NULL,
    PRIMARY KEY (source, event_id)
) STRICT, WITHOUT ROWID;

-- Work due at a time: one row per (intent, kind, reference). `reference` names the attempt or
-- refund the timer is about ('' when it is about the intent).
CREATE TABLE timers (
    id         INTEGER PRIMARY KEY,
    intent_id  TEXT NOT NULL REFERENCES intents (id),
    kind       TEXT NOT NULL CHECK (kind IN (
                   'abandonment', 'authorization_expiry', 'sheet_deadline',
                   'challenge_expiry', 'reconciliation')),
    reference  TEXT NOT NULL DEFAULT '',
    due_at     INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (intent_id, kind, reference)
) STRICT;

CREATE INDEX timers_by_due ON timers (due_at, id);

-- Stripe-style idempotency keys: the first result (failures included) is stored and replayed;
-- the same key with other parameters is refused; rows older than 24 h are expired.
CREATE TABLE idempotency_keys (
    key           TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 255
                                       AND key NOT GLOB '*[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*'),
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

CREATE INDEX idempotency_keys_by_created ON idempotency_keys (created_at);

-- Apple Pay payment token transaction ids already used: a replayed token is refused.
CREATE TABLE seen_token_transactions (
    transaction_id TEXT PRIMARY KEY NOT NULL CHECK (length(transaction_id) BETWEEN 1 AND 128
                                                    AND transaction_id NOT GLOB '*[^0-9a-f]*'),
    intent_id      TEXT REFERENCES intents (id),
    attempt_id     TEXT,
    seen_at        INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
