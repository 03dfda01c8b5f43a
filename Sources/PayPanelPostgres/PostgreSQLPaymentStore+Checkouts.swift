#if PostgreSQL
import Foundation
import PayPanel

// Checkouts (Migrations/postgresql/0005) and API keys (0004) on the same pooled connections:
// each call is one statement, so one autocommit transaction. The panel is kept as the compact
// JSON its validator reads, and read back through that validator.
extension PostgreSQLPaymentStore: CheckoutStore, APIKeyStore {
    typealias S = PostgreSQLStatement

    static let checkoutColumns = CheckoutRows.columns

    static let insertCheckoutStatement = S(
        "checkouts.insert", "INSERT INTO checkouts (\(checkoutColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)")
    static let checkoutByID = S("checkouts.by_id", "SELECT \(checkoutColumns) FROM checkouts WHERE id = $1")
    static let updateCheckoutStatement = S("checkouts.update", SharedSQL.updateCheckout.postgreSQL)
    static let checkoutsDue = S("checkouts.due", """
        SELECT \(checkoutColumns) FROM checkouts
        WHERE status = 'open' AND expires_at IS NOT NULL AND expires_at <= $1 ORDER BY expires_at, id LIMIT $2
        """)
    static let secretHashByID = S("checkouts.secret_hash_by_id", SharedSQL.checkoutSecretHash.postgreSQL)

    /// One statement outside any transaction of this store (or inside the current one).
    @discardableResult
    private func statement(_ statement: S, _ values: [any DatabaseBindable]) throws -> PostgreSQLResult {
        try pool.withConnection { try $0.execute(statement, values) }
    }

    public func insertCheckout(_ checkout: Checkout) throws {
        try statement(Self.insertCheckoutStatement, [
            checkout.id, checkout.status.rawValue, JSONWriter.string(checkout.panel.json, style: .compact), checkout.captureMethod.rawValue,
            checkout.expiresAt, checkout.clientSecretHash, checkout.paymentIntentID, checkout.createdAt, checkout.updatedAt,
            checkout.version, checkout.metadata.storedText,
        ])
    }

    public func checkout(_ id: String) throws -> Checkout? {
        try statement(Self.checkoutByID, [id]).rows.first.map(Self.checkout)
    }

    public func updateCheckout(_ checkout: Checkout, previousVersion: Int64) throws -> Bool {
        try statement(Self.updateCheckoutStatement, [
            checkout.status.rawValue, JSONWriter.string(checkout.panel.json, style: .compact), checkout.captureMethod.rawValue,
            checkout.expiresAt, checkout.paymentIntentID, checkout.updatedAt, checkout.version, checkout.metadata.storedText,
            checkout.id, previousVersion,
        ]).affectedRows == 1
    }

    public func checkoutsDueForExpiry(at now: Date, limit: Int) throws -> [Checkout] {
        try statement(Self.checkoutsDue, [now, Int64(limit)]).rows.map(Self.checkout)
    }

    public func clientSecretHash(ofCheckout id: String) throws -> [UInt8]? {
        try statement(Self.secretHashByID, [id]).rows.first?.blob(0)
    }

    static func checkout(_ row: PostgreSQLRow) throws -> Checkout {
        try CheckoutRows.checkout(row)
    }

    // MARK: - API keys

    static let insertKey = S("api_keys.insert", SharedSQL.insertAPIKey.postgreSQL)
    static let allKeys = S("api_keys.all", "SELECT id, name, key_hash, created_at, revoked_at FROM api_keys ORDER BY created_at, id")
    static let activeKeys = S(
        "api_keys.active", "SELECT id, name, key_hash, created_at, revoked_at FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at, id")
    static let revokeKey = S("api_keys.revoke", SharedSQL.revokeAPIKey.postgreSQL)

    package func insertAPIKey(_ record: APIKeyRecord) throws {
        try statement(Self.insertKey, [record.id, record.name, record.keyHash, record.createdAt, record.revokedAt])
    }

    package func apiKeys(includeRevoked: Bool) throws -> [APIKeyRecord] {
        try statement(includeRevoked ? Self.allKeys : Self.activeKeys, []).rows.map { row in
            APIKeyRecord(
                id: row.string(0), name: row.string(1), keyHash: row.string(2), createdAt: PaymentRows.date(row.int64(3)),
                revokedAt: row.optionalInt64(4).map(PaymentRows.date))
        }
    }

    public func revokeAPIKey(id: String, at now: Date) throws -> Bool {
        try statement(Self.revokeKey, [now, id]).affectedRows == 1
    }

    static let ping = S("health.ping", "SELECT 1")

    /// Nil when the database answers and holds exactly this program's migrations; otherwise why not.
    public func notReadyReason() -> String? { readiness()?.reason }

    /// `notReadyReason` with the fault behind it: a server that is down or restarting is
    /// `database_unreachable`, a standby reached after a failover `database_read_only`.
    package func readiness() -> StoreNotReady? {
        do {
            let applied = try pool.withConnection { connection in
                try connection.execute(Self.ping, [])
                return try PostgreSQLMigrator(set: .postgreSQL, clock: SystemClock()).verify(connection)
            }
            let pending = MigrationSet.postgreSQL.migrations.count - applied.count
            return pending > 0 ? StoreNotReady(fault: nil, reason: "the database lacks \(pending) migration(s): restart the server to apply them") : nil
        } catch {
            let described = (error as? any PayPanelError).map { "\($0.code): \($0.message)" } ?? "error"
            return StoreNotReady(fault: (error as? any StoreFaultError)?.storeFault, reason: "the payments database cannot be read (\(described))")
        }
    }
}
#endif
