-- 0004: what `processor serve` keeps of each account (each sk_test_ key), in the ledger file
-- itself: one store for the money and the Stripe-side view of it (intents, refunds, charges,
-- customers, payment methods, replayable answers, scripted chains, test clocks). One row per
-- object, so a request writes the objects it changed and nothing else, however many the
-- account holds (docs/mock-processor.md, "What survives a restart"). Earlier versions kept
-- these tables in a second file, `<ledger>.accounts.sqlite`; `processor serve` moves such a
-- file's accounts in here at start. Never a card number or a cryptogram: a payment method is
-- kept as its brand, last four digits, expiry and the SHA-256 fingerprint of its number, and a
-- chain under the SHA-256 of its card.

CREATE TABLE accounts (
    tag          TEXT PRIMARY KEY NOT NULL,       -- acct_ + 16 hex digits of SHA-256(key); never the key
    clock_offset REAL NOT NULL                    -- seconds the account's test clock is ahead of the server's
) STRICT;

CREATE TABLE account_objects (
    account  TEXT NOT NULL REFERENCES accounts (tag) ON DELETE CASCADE,
    kind     TEXT NOT NULL CHECK (kind IN ('intent', 'refund', 'idempotency_key', 'card_chain', 'charge', 'customer', 'payment_method')),
    id       TEXT NOT NULL,                       -- pi_…, re_…, ch_…, cus_…, pm_…, the Idempotency-Key, or the card's SHA-256
    position INTEGER NOT NULL,                    -- creation order within the account and kind (0: unordered)
    body     TEXT NOT NULL,                       -- the object as JSON (AccountRecords.swift)
    UNIQUE (account, kind, id)
) STRICT;
