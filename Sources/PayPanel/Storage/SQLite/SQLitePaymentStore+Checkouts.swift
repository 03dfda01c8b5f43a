import Foundation

// The checkouts table (Migrations/0005_checkouts.sql). The panel is kept as the compact JSON
// its validator reads, and read back through that validator.
extension SQLitePaymentStore: CheckoutStore {
    private static let columns =
        "id, status, panel, capture_method, expires_at, client_secret_hash, payment_intent_id, created_at, updated_at, version"

    public func insertCheckout(_ checkout: Checkout) throws {
        try database.write {
            try database.execute(
                "INSERT INTO checkouts (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [checkout.id, checkout.status.rawValue, Self.panelText(checkout.panel), checkout.captureMethod.rawValue,
                 checkout.expiresAt, checkout.clientSecretHash, checkout.paymentIntentID, checkout.createdAt,
                 checkout.updatedAt, checkout.version])
        }
    }

    public func checkout(_ id: String) throws -> Checkout? {
        try database.read {
            try database.queryFirst("SELECT \(Self.columns) FROM checkouts WHERE id = ?", [id], Self.checkout)
        }
    }

    public func updateCheckout(_ checkout: Checkout, previousVersion: Int64) throws -> Bool {
        try database.write {
            try database.execute(
                """
                UPDATE checkouts SET status = ?, panel = ?, capture_method = ?, expires_at = ?, payment_intent_id = ?,
                    updated_at = ?, version = ?
                WHERE id = ? AND version = ?
                """,
                [checkout.status.rawValue, Self.panelText(checkout.panel), checkout.captureMethod.rawValue, checkout.expiresAt,
                 checkout.paymentIntentID, checkout.updatedAt, checkout.version, checkout.id, previousVersion])
            return database.changes == 1
        }
    }

    public func checkoutsDueForExpiry(at now: Date, limit: Int) throws -> [Checkout] {
        try database.read {
            try database.queryAll(
                """
                SELECT \(Self.columns) FROM checkouts
                WHERE status = 'open' AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at, id LIMIT ?
                """, [now, limit], Self.checkout)
        }
    }

    public func checkoutID(clientSecretHash hash: [UInt8]) throws -> String? {
        try database.read {
            try database.queryFirst("SELECT id FROM checkouts WHERE client_secret_hash = ?", [hash]) { $0.string(0) }
        }
    }

    private static func panelText(_ panel: PanelConfig) -> String {
        JSONWriter.string(panel.json, style: .compact)
    }

    static func checkout(_ row: Row) throws -> Checkout {
        let id = row.string(0)
        guard let status = CheckoutStatus(rawValue: row.string(1)) else {
            throw CheckoutStoreError(checkoutID: id, detail: "unknown status")
        }
        let panelResult = PanelConfigReader.read(data: Array(row.string(2).utf8))
        guard let panel = panelResult.panel else {
            throw CheckoutStoreError(checkoutID: id, detail: "the panel no longer validates: \(panelResult.report.errors.first?.description ?? "unreadable")")
        }
        guard let captureMethod = CaptureMethod(rawValue: row.string(3)) else {
            throw CheckoutStoreError(checkoutID: id, detail: "unknown capture method")
        }
        return Checkout(
            id: id, status: status, panel: panel, captureMethod: captureMethod, paymentIntentID: row.optionalString(6),
            clientSecretHash: row.blob(5), createdAt: PaymentRows.date(row.int64(7)), updatedAt: PaymentRows.date(row.int64(8)),
            version: row.int64(9))
    }
}
