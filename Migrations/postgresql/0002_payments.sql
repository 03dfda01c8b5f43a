-- 0002 (PostgreSQL dialect of Migrations/0002_payments.sql): payment intents, their attempts
-- and refunds, the append-only event history, the transactional outbox, the processor inbox,
-- timers, idempotency keys and the Apple Pay transactionId replay guard.
--
-- The same columns, constraints and triggers as the SQLite file, in PostgreSQL's words: BIGINT
-- for money, versions, counters and times (milliseconds since the epoch, UTC); GLOB becomes a
-- regular expression; triggers are PL/pgSQL functions. Free-text columns refuse runs of 13 or
-- more digits, so no column can hold a card number. Shipped migrations are never edited.

CREATE TABLE intents (
    id                      TEXT PRIMARY KEY NOT NULL CHECK (id ~ '^pi_.'),
    status                  TEXT NOT NULL CHECK (status IN (
                                'requires_payment_method', 'requires_action', 'processing',
                                'requires_capture', 'requires_merchant_action',
                                'succeeded', 'canceled', 'expired')),
    amount                  BIGINT NOT NULL CHECK (amount > 0),
    currency                TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    capture_method          TEXT NOT NULL CHECK (capture_method IN ('automatic', 'manual')),
    order_reference         TEXT CHECK (length(order_reference) BETWEEN 1 AND 200 AND order_reference !~ '[0-9]{13}'),
    amount_authorized       BIGINT NOT NULL DEFAULT 0,
    amount_captured         BIGINT NOT NULL DEFAULT 0,
    amount_refunded         BIGINT NOT NULL DEFAULT 0,   -- succeeded refunds
    amount_refund_pending   BIGINT NOT NULL DEFAULT 0,   -- refunds not yet final (reserved)
    capture_before          BIGINT,
    attempt_count           BIGINT NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
    current_attempt_id      TEXT,
    -- The processor call in flight (status 'processing' exactly when one is).
    in_flight_operation     TEXT CHECK (in_flight_operation IN ('authorize', 'complete_challenge', 'capture', 'void')),
    in_flight_attempt_id    TEXT,
    in_flight_amount        BIGINT CHECK (in_flight_amount > 0),
    in_flight_void_purpose  TEXT CHECK (in_flight_void_purpose IN ('cancel', 'reversal')),
    in_flight_started_at    BIGINT,
    outcome_unknown_since   BIGINT,
    reconciliation_lookups  BIGINT NOT NULL DEFAULT 0 CHECK (reconciliation_lookups >= 0),
    processor_retries       BIGINT NOT NULL DEFAULT 0 CHECK (processor_retries >= 0),
    last_error_code         TEXT,
    last_error_decline_code TEXT,
    last_error_message      TEXT CHECK (last_error_message !~ '[0-9]{13}'),
    last_error_attempt_id   TEXT,
    cancellation_reason     TEXT CHECK (cancellation_reason IN (
                                'requested_by_customer', 'duplicate', 'fraudulent', 'abandoned', 'operator')),
    version                 BIGINT NOT NULL CHECK (version >= 1),
    created_at              BIGINT NOT NULL,
    updated_at              BIGINT NOT NULL,
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
);

-- `payments list` pages newest first, optionally by status, without sorting in memory.
CREATE INDEX intents_by_created ON intents (created_at DESC, id DESC);
CREATE INDEX intents_by_status ON intents (status, created_at DESC, id DESC);
-- The reconciliation worker's scan of calls in flight.
CREATE INDEX intents_in_flight ON intents (in_flight_started_at, id) WHERE in_flight_operation IS NOT NULL;

-- Terminal states never change; a succeeded intent only moves money on its refund ledger.
-- Every change of an intent is one version: optimistic concurrency and the event history agree.
CREATE FUNCTION intents_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.status IN ('canceled', 'expired')
       OR (OLD.status = 'succeeded' AND (NEW.status <> 'succeeded' OR NEW.amount_captured <> OLD.amount_captured)) THEN
        RAISE EXCEPTION 'a canceled, expired or succeeded payment intent cannot change state';
    END IF;
    IF NEW.version <> OLD.version + 1 OR NEW.id <> OLD.id OR NEW.amount <> OLD.amount OR NEW.currency <> OLD.currency THEN
        RAISE EXCEPTION 'an intent update must raise its version by one and keep its id, amount and currency';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER intents_guard_update BEFORE UPDATE ON intents FOR EACH ROW EXECUTE FUNCTION intents_guard_update();

CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%', TG_ARGV[0];
END;
$$;

CREATE TRIGGER intents_are_never_deleted BEFORE DELETE ON intents
    FOR EACH ROW EXECUTE FUNCTION refuse_change('payment intents are never deleted');

-- One row per authorization try. Only what may be kept about the card: the network, the last
-- four digits, the expiry month/year and whether the token carried an ECI.
CREATE TABLE attempts (
    id               TEXT PRIMARY KEY NOT NULL CHECK (id ~ '^att_.'),
    intent_id        TEXT NOT NULL REFERENCES intents (id),
    sequence         BIGINT NOT NULL CHECK (sequence >= 1),
    status           TEXT NOT NULL CHECK (status IN (
                         'authorizing', 'requires_action', 'authorized', 'captured',
                         'failed', 'voided', 'expired')),
    source           TEXT NOT NULL CHECK (source IN ('apple_pay', 'card')),
    network          TEXT CHECK (network ~ '^[A-Za-z]{1,32}$'),
    card_last4       TEXT NOT NULL CHECK (card_last4 ~ '^[0-9]{4}$'),
    expiry_month     BIGINT CHECK (expiry_month BETWEEN 1 AND 12),
    expiry_year      BIGINT CHECK (expiry_year BETWEEN 2000 AND 2999),
    eci_present      BIGINT NOT NULL CHECK (eci_present IN (0, 1)),
    amount           BIGINT NOT NULL CHECK (amount > 0),
    currency         TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    approved_amount  BIGINT CHECK (approved_amount >= 0),
    approved_currency TEXT CHECK (length(approved_currency) = 3),
    processor_id     TEXT CHECK (processor_id !~ '[0-9]{13}'),
    failure_code     TEXT,
    decline_code     TEXT,
    failure_message  TEXT CHECK (failure_message !~ '[0-9]{13}'),
    sheet_status     TEXT CHECK (sheet_status IN ('awaiting_answer', 'answered_success', 'answered_failure')),
    sheet_deadline   BIGINT,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL,
    UNIQUE (intent_id, sequence),
    CHECK ((sheet_status IS NULL) = (sheet_deadline IS NULL)),
    CHECK ((failure_code IS NULL) = (failure_message IS NULL))
);

-- Refunds of a captured intent: partial and several; the sum of pending and succeeded refunds
-- never exceeds the captured amount (intents CHECK above, and the machine's guard). `seq`
-- keeps the order of insertion (SQLite's rowid) for refunds created in the same millisecond.
CREATE TABLE refunds (
    id                     TEXT PRIMARY KEY NOT NULL CHECK (id ~ '^re_.'),
    seq                    BIGINT GENERATED ALWAYS AS IDENTITY,
    intent_id              TEXT NOT NULL REFERENCES intents (id),
    attempt_id             TEXT NOT NULL REFERENCES attempts (id),
    amount                 BIGINT NOT NULL CHECK (amount > 0),
    currency               TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    status                 TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'requires_merchant_action')),
    reason                 TEXT CHECK (reason IN ('requested_by_customer', 'duplicate', 'fraudulent', 'reversal')),
    processor_accepted     BIGINT NOT NULL DEFAULT 0 CHECK (processor_accepted IN (0, 1)),
    processor_id           TEXT CHECK (processor_id !~ '[0-9]{13}'),
    failure_code           TEXT,
    outcome_unknown_since  BIGINT,
    reconciliation_lookups BIGINT NOT NULL DEFAULT 0 CHECK (reconciliation_lookups >= 0),
    processor_retries      BIGINT NOT NULL DEFAULT 0 CHECK (processor_retries >= 0),
    created_at             BIGINT NOT NULL,
    updated_at             BIGINT NOT NULL
);

CREATE INDEX refunds_by_intent ON refunds (intent_id, created_at, seq);
CREATE INDEX refunds_pending ON refunds (created_at, id) WHERE status = 'pending';

-- The history of every intent: one row per accepted event, numbered by the intent's version.
-- Append-only: the triggers below refuse updates and deletes.
CREATE TABLE events (
    intent_id   TEXT NOT NULL REFERENCES intents (id),
    version     BIGINT NOT NULL CHECK (version >= 1),
    type        TEXT NOT NULL,
    from_status TEXT,
    to_status   TEXT NOT NULL,
    data        TEXT NOT NULL CHECK (data !~ '[0-9]{13}'),
    occurred_at BIGINT NOT NULL,
    PRIMARY KEY (intent_id, version)
);

CREATE TRIGGER events_are_append_only_update BEFORE UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION refuse_change('the event history is append-only');
CREATE TRIGGER events_are_append_only_delete BEFORE DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION refuse_change('the event history is append-only');

-- Messages for the outside world (webhooks), written in the same transaction as the change
-- they announce, delivered later by a relay (claimed with FOR UPDATE SKIP LOCKED).
CREATE TABLE outbox (
    id                BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    intent_id         TEXT NOT NULL REFERENCES intents (id),
    intent_version    BIGINT NOT NULL,
    topic             TEXT NOT NULL,
    refund_id         TEXT REFERENCES refunds (id),
    payload           TEXT NOT NULL,
    created_at        BIGINT NOT NULL,
    delivered_at      BIGINT,
    delivery_attempts BIGINT NOT NULL DEFAULT 0 CHECK (delivery_attempts >= 0),
    UNIQUE (intent_id, intent_version, topic)
);

CREATE INDEX outbox_undelivered ON outbox (id) WHERE delivered_at IS NULL;

-- Processor events (webhooks, ledger notices) already processed: each is handled once.
CREATE TABLE inbox (
    source       TEXT NOT NULL,
    event_id     TEXT NOT NULL,
    intent_id    TEXT REFERENCES intents (id),
    received_at  BIGINT NOT NULL,
    PRIMARY KEY (source, event_id)
);

-- Work due at a time: one row per (intent, kind, reference). `reference` names the attempt or
-- refund the timer is about ('' when it is about the intent). Claimed with SKIP LOCKED.
CREATE TABLE timers (
    id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    intent_id  TEXT NOT NULL REFERENCES intents (id),
    kind       TEXT NOT NULL CHECK (kind IN (
                   'abandonment', 'authorization_expiry', 'sheet_deadline',
                   'challenge_expiry', 'reconciliation')),
    reference  TEXT NOT NULL DEFAULT '',
    due_at     BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (intent_id, kind, reference)
);

CREATE INDEX timers_by_due ON timers (due_at, id);

-- Stripe-style idempotency keys: the first result (failures included) is stored and replayed;
-- the same key with other parameters is refused; rows older than 24 h are expired.
CREATE TABLE idempotency_keys (
    key           TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 255 AND key !~ '[0-9]{13}'),
    scope         TEXT NOT NULL,
    request_hash  TEXT NOT NULL CHECK (length(request_hash) = 64),
    status        TEXT NOT NULL CHECK (status IN ('in_progress', 'completed')),
    outcome       TEXT CHECK (outcome IN ('succeeded', 'failed')),
    response      TEXT,
    error_code    TEXT,
    error_message TEXT,
    resource_id   TEXT,
    created_at    BIGINT NOT NULL,
    locked_at     BIGINT,
    completed_at  BIGINT,
    PRIMARY KEY (key, scope),
    CHECK ((status = 'completed') = (outcome IS NOT NULL AND completed_at IS NOT NULL)),
    CHECK ((status = 'in_progress') = (locked_at IS NOT NULL)),
    CHECK (outcome <> 'failed' OR error_code IS NOT NULL)
);

CREATE INDEX idempotency_keys_by_created ON idempotency_keys (created_at);

-- Apple Pay payment token transaction ids already used: a replayed token is refused.
CREATE TABLE seen_token_transactions (
    transaction_id TEXT PRIMARY KEY NOT NULL CHECK (transaction_id ~ '^[0-9a-f]{1,128}$'),
    intent_id      TEXT REFERENCES intents (id),
    attempt_id     TEXT,
    seen_at        BIGINT NOT NULL
);
