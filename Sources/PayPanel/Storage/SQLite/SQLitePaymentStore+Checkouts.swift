import Foundation

// The checkouts table (Migrations/0005_checkouts.sql). The panel is kept as the compact JSON
// its validator reads, and read back through that validator.
extension SQLitePaymentStore: CheckoutStore {
    private static let columns = CheckoutRows.columns

    package func insertCheckout(_ checkout: Checkout) throws {
        try database.write {
            try database.execute(
                "INSERT INTO checkouts (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [checkout.id, checkout.status.rawValue, Self.panelText(checkout.panel), checkout.captureMethod.rawValue,
                 checkout.expiresAt, checkout.clientSecretHash, checkout.paymentIntentID, checkout.createdAt,
                 checkout.updatedAt, checkout.version, checkout.metadata.storedText])
        }
    }

    package func checkout(_ id: String) throws -> Checkout? {
        try database.read {
            try database.queryFirst("SELECT \(Self.columns) FROM checkouts WHERE id = ?", [id], Self.checkout)
        }
    }

    package func updateCheckout(_ checkout: Checkout, previousVersion: Int64) throws -> Bool {
        try database.write {
            try database.execute(
                SharedSQL.updateCheckout.sqlite,
                [checkout.status.rawValue, Self.panelText(checkout.panel), checkout.captureMethod.rawValue, checkout.expiresAt,
                 checkout.paymentIntentID, checkout.updatedAt, checkout.version, checkout.metadata.storedText, checkout.id, previousVersion])
            return database.changes == 1
        }
    }

    package func checkoutsDueForExpiry(at now: Date, limit: Int) throws -> [Checkout] {
        try database.read {
            try database.queryAll(
                """
                SELECT \(Self.columns) FROM checkouts
                WHERE status = 'open' AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at, id LIMIT ?
                """, [now, limit], Self.checkout)
        }
    }

    package func clientSecretHash(ofCheckout id: String) throws -> [UInt8]? {
        try database.read {
            try database.queryFirst(SharedSQL.checkoutSecretHash.sqlite, [id]) { $0.blob(0) }
        }
    }

    private static func panelText(_ panel: PanelConfig) -> String {
        JSONWriter.string(panel.json, style: .compact)
    }

    static func checkout(_ row: Row) throws -> Checkout {
        try CheckoutRows.checkout(row)
    }
}
