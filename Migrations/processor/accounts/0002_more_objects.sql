-- 0002: charges, customers and payment methods are objects of their own (GET /v1/charges,
-- /v1/customers, /v1/payment_methods), kept like intents and refunds: one row each. SQLite cannot
-- change a CHECK constraint in place, so the table is rebuilt with the wider list and its rows
-- copied over unchanged. Still never a card number: a payment method is kept as its brand, last
-- four digits, expiry and the SHA-256 fingerprint of its number.

CREATE TABLE account_objects_0002 (
    account  TEXT NOT NULL REFERENCES accounts (tag) ON DELETE CASCADE,
    kind     TEXT NOT NULL CHECK (kind IN ('intent', 'refund', 'idempotency_key', 'card_chain', 'charge', 'customer', 'payment_method')),
    id       TEXT NOT NULL,                       -- pi_…, re_…, ch_…, cus_…, pm_…, the Idempotency-Key, or the card's SHA-256
    position INTEGER NOT NULL,                    -- creation order within the account and kind (0: unordered)
    body     TEXT NOT NULL,                       -- the object as JSON (AccountRecords.swift)
    UNIQUE (account, kind, id)
) STRICT;

INSERT INTO account_objects_0002 (account, kind, id, position, body)
    SELECT account, kind, id, position, body FROM account_objects;

DROP TABLE account_objects;

ALTER TABLE account_objects_0002 RENAME TO account_objects;
