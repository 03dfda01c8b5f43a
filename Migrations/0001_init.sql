-- 0001: the migration bookkeeping. Every later migration adds a row here in the same
-- transaction that applies it (see Sources/PayPanel/Storage/Migrator.swift).
-- Shipped migrations are never edited: their checksum is checked on every open.

PRAGMA application_id = 1346459984; -- 'PAYP': marks the file as a PayPanel payments database

CREATE TABLE schema_migrations (
    identifier TEXT PRIMARY KEY NOT NULL,   -- file name without .sql, e.g. 0001_init
    checksum   TEXT NOT NULL,               -- SHA-256 (hex) of the file's text
    applied_at INTEGER NOT NULL             -- milliseconds since the epoch, UTC
) STRICT;
