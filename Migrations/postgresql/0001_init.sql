-- 0001 (PostgreSQL dialect of Migrations/0001_init.sql): the migration bookkeeping. Every later
-- migration adds a row here in the same transaction that applies it (see
-- Sources/PayPanel/Storage/PostgreSQL/PostgreSQLMigrator.swift). Each migration runs with
-- search_path set to the store's schema, so the objects below are created there.
-- Shipped migrations are never edited: their checksum is checked on every open.

CREATE TABLE schema_migrations (
    identifier TEXT PRIMARY KEY NOT NULL,   -- file name without .sql, e.g. 0001_init
    checksum   TEXT NOT NULL,               -- SHA-256 (hex) of the file's text
    applied_at BIGINT NOT NULL              -- milliseconds since the epoch, UTC
);
