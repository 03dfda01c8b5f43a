-- 0001: what `processor serve` keeps of each account (each sk_test_ key) beside its ledger, in
-- `<ledger>.accounts.sqlite`: one row per object, so a request writes the objects it changed and
-- nothing else, however many the account holds (docs/mock-processor.md, "What survives a
-- restart"). The money is in the ledger file; this file is the Stripe-side view of it (intents,
-- refunds, replayable answers, scripted chains, test clocks). Never a card number or a
-- cryptogram: a payment method is kept as its id, and a chain under the SHA-256 of its card.

PRAGMA application_id = 1346459956; -- 'PAY4': marks the file as a mock processor's account store

CREATE TABLE schema_migrations (
    identifier TEXT PRIMARY KEY NOT NULL,
    checksum   TEXT NOT NULL,
    applied_at INTEGER NOT NULL
) STRICT;

CREATE TABLE accounts (
    tag          TEXT PRIMARY KEY NOT NULL,       -- acct_ + 16 hex digits of SHA-256(key); never the key
    clock_offset REAL NOT NULL                    -- seconds the account's test clock is ahead of the server's
) STRICT;

CREATE TABLE account_objects (
    account  TEXT NOT NULL REFERENCES accounts (tag) ON DELETE CASCADE,
    kind     TEXT NOT NULL CHECK (kind IN ('intent', 'refund', 'idempotency_key', 'card_chain')),
    id       TEXT NOT NULL,                       -- pi_…, re_…, the Idempotency-Key, or the card's SHA-256
    position INTEGER NOT NULL,                    -- creation order within the account and kind (0: unordered)
    body     TEXT NOT NULL,                       -- the object as JSON (AccountRecords.swift)
    UNIQUE (account, kind, id)
) STRICT;
