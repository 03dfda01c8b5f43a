-- 0002: the mock processor's ledger. One row per operation it received and processed;
-- requests it refused before processing (HTTP 503/429/500-before, lost requests, malformed
-- requests) leave no row, exactly as at a real processor. Never a card number or a
-- cryptogram: only network, last four digits and a SHA-256 of each cryptogram seen.

CREATE TABLE operations (
    id               INTEGER PRIMARY KEY,          -- ledger order; the processor id derives from it
    reference        TEXT NOT NULL,                -- the caller's attempt id (idempotency key)
    operation        TEXT NOT NULL CHECK (operation IN ('authorize', 'capture', 'void', 'refund')),
    refund_reference TEXT,                         -- refunds only: the refund's own idempotency key
    amount           INTEGER NOT NULL,             -- minor units of currency
    currency         TEXT NOT NULL,                -- ISO 4217 code
    status           TEXT NOT NULL CHECK (status IN ('approved', 'declined', 'pending', 'challenge_required')),
    decline_code     TEXT,
    network          TEXT,                         -- from the card number; NULL when unknown
    last4            TEXT,
    trigger_name     TEXT,                         -- authorize: the trigger that chose the outcome
    expires_at       INTEGER,                      -- approved authorize: capture deadline (epoch ms)
    settles_at       INTEGER,                      -- pending refund: when it succeeds (epoch ms)
    created_at       INTEGER NOT NULL,             -- epoch ms, on the processor's clock
    updated_at       INTEGER NOT NULL,
    CHECK ((status = 'declined') = (decline_code IS NOT NULL)),
    CHECK ((operation = 'refund') = (refund_reference IS NOT NULL)),
    CHECK ((status = 'pending') = (settles_at IS NOT NULL)),
    CHECK (last4 IS NULL OR (length(last4) = 4 AND last4 NOT GLOB '*[^0-9]*'))
) STRICT;

-- One authorization per reference: the idempotency guarantee, enforced by the schema too.
CREATE UNIQUE INDEX operations_one_authorization ON operations (reference) WHERE operation = 'authorize';
CREATE UNIQUE INDEX operations_refund_reference ON operations (refund_reference) WHERE refund_reference IS NOT NULL;
CREATE INDEX operations_by_reference ON operations (reference, operation);
CREATE INDEX operations_pending ON operations (settles_at) WHERE status = 'pending';

-- Cryptograms already presented (SHA-256 only): a second use is declined invalid_cryptogram.
CREATE TABLE used_cryptograms (
    sha256        BLOB PRIMARY KEY NOT NULL CHECK (length(sha256) = 32),
    reference     TEXT NOT NULL,
    first_used_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- How far each reference has consumed its trigger chain (`HTTP_503|APPROVE`), so the next
-- step is taken even when the retry comes from another process.
CREATE TABLE chain_positions (
    reference TEXT NOT NULL,
    chain     TEXT NOT NULL,
    next_step INTEGER NOT NULL CHECK (next_step >= 0),
    PRIMARY KEY (reference, chain)
) STRICT, WITHOUT ROWID;
