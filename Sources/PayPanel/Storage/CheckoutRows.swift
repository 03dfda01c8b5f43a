import Foundation

/// Checkout rows as values, read the same way from SQLite and PostgreSQL (both select the
/// checkout columns in the same order: id, status, panel, capture_method, …, client_secret_hash,
/// payment_intent_id, created_at, updated_at, version, metadata).
package enum CheckoutRows {
    /// The columns `checkout(_:)` reads, in its order.
    package static let columns =
        "id, status, panel, capture_method, expires_at, client_secret_hash, payment_intent_id, created_at, updated_at, version, metadata"

    package static func checkout(_ row: some StoredRow) throws -> Checkout {
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
        guard let metadata = Metadata(storedText: row.string(10)) else {
            throw CheckoutStoreError(checkoutID: id, detail: "unreadable metadata")
        }
        return Checkout(
            id: id, status: status, panel: panel, captureMethod: captureMethod, paymentIntentID: row.optionalString(6),
            clientSecretHash: row.blob(5), createdAt: PaymentRows.date(row.int64(7)), updatedAt: PaymentRows.date(row.int64(8)),
            version: row.int64(9), metadata: metadata)
    }
}
