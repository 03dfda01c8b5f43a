import Foundation

/// Webhook rows as values, read the same way from SQLite and PostgreSQL.
package enum WebhookRows {
    /// An endpoint row read from column `offset` on, in the stores' `endpointColumns` order: id,
    /// url, events, status, disabled_reason, secret_sealed, secret_version,
    /// previous_secret_sealed, previous_secret_version, previous_expires_at, created_at.
    package static func endpoint(_ row: some StoredRow, offset: Int = 0) throws -> WebhookEndpointRecord {
        let id = row.string(offset)
        guard case .array(let types)? = try? JSONParser().parse(row.string(offset + 2)),
              let status = WebhookEndpointRecord.Status(rawValue: row.string(offset + 3))
        else { throw WebhookStoreError("webhook endpoint \(id) has an unreadable row", code: "database_corrupt_row") }
        return WebhookEndpointRecord(
            id: id, url: row.string(offset + 1), eventTypes: types.compactMap(\.stringValue), status: status,
            disabledReason: row.optionalString(offset + 4), sealedSecret: row.blob(offset + 5), secretVersion: row.int64(offset + 6),
            previousSealedSecret: row.isNull(offset + 7) ? nil : row.blob(offset + 7), previousSecretVersion: row.optionalInt64(offset + 8),
            previousExpiresAt: row.optionalInt64(offset + 9).map(PaymentRows.date), createdAt: PaymentRows.date(row.int64(offset + 10)))
    }
}
