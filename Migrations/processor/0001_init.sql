-- 0001: the mock processor ledger's migration bookkeeping (same shape as the payments
-- database's, in the processor's own file).

PRAGMA application_id = 1346459955; -- 'PAY3': marks the file as a PayPanel mock-processor ledger

CREATE TABLE schema_migrations (
    identifier TEXT PRIMARY KEY NOT NULL,
    checksum   TEXT NOT NULL,
    applied_at INTEGER NOT NULL
) STRICT;
