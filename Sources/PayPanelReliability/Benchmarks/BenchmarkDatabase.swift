import Foundation
import PayPanel

/// SQLite-specific tooling for `paypanel bench cli`: a payments database with many intents,
/// written in one statement (inserting a million intents through `PaymentStore` one
/// transition at a time would take longer than the benchmark measures). Kept here, not in the
/// CLI, so the command runs no SQL; the rows are shaped as the store's own.
public enum BenchmarkDatabase {
    /// Creates (or migrates) the payments database at `path` and adds `count` intents
    /// awaiting a payment method, then checkpoints the write-ahead log into the main file.
    public static func populate(path: String, count: Int) throws {
        let database = try Database.openMigrated(path: path)
        try database.execute(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            INSERT INTO intents (id, status, amount, currency, capture_method, order_reference, version, created_at, updated_at)
            SELECT printf('pi_bench%017d', i), 'requires_payment_method', 1000 + i, 'USD', 'automatic', 'order-' || i, 1,
                   1795000000000 + i, 1795000000000 + i
            FROM n
            """, [Int64(count)])
        // Into the main file: the list then reads a database as a long-running one is, not a
        // fresh 40 MB write-ahead log (whose index a reader maps, and which would be measured).
        _ = try database.queryAll("PRAGMA wal_checkpoint(TRUNCATE)", []) { $0.int64(0) }
    }
}
