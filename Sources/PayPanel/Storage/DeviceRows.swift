import Foundation

/// Devices and the push queue's rows as values, read the same way from SQLite and PostgreSQL
/// (both stores select the columns in this order: `deviceColumns`, `deliveryColumns`, and the
/// attempts' six).
package enum DeviceRows {
    /// The columns `device(_:)` reads, in its order.
    package static let deviceColumns = "id, token, topic, environment, dead_reason, dead_at, created_at"

    /// A `devices` row of `deviceColumns`.
    package static func device(_ row: some StoredRow) throws -> Device {
        let id = row.string(0)
        guard let environment = APNsEnvironment(rawValue: row.string(3)) else {
            throw DeviceStoreError(rowID: id, detail: "unknown environment")
        }
        let dead = row.optionalString(4).map { (reason: $0, at: Timestamp.date(epochMilliseconds: row.int64(5))) }
        return Device(id: id, token: row.string(1), topic: row.string(2), environment: environment, dead: dead,
                      createdAt: Timestamp.date(epochMilliseconds: row.int64(6)))
    }

    /// A `push_deliveries` row: id, apns_id, device_id, checkout_id, collapse_id, payload,
    /// expires_at, status, reason, attempts, next_attempt_at.
    package static func delivery(_ row: some StoredRow) throws -> PushDelivery {
        let id = row.int64(0)
        guard let status = PushDeliveryStatus(rawValue: row.string(7)) else {
            throw DeviceStoreError(rowID: String(id), detail: "unknown delivery status")
        }
        return PushDelivery(
            id: id, apnsID: row.string(1), deviceID: row.string(2), checkoutID: row.optionalString(3), collapseID: row.optionalString(4),
            payload: Array(row.string(5).utf8), expiresAt: row.optionalInt64(6).map { Timestamp.date(epochMilliseconds: $0) },
            status: status, reason: row.optionalString(8), attempts: row.int(9),
            nextAttemptAt: row.optionalInt64(10).map { Timestamp.date(epochMilliseconds: $0) })
    }

    /// A `push_attempts` row: attempt, started_at, finished_at, outcome, http_status, reason.
    package static func attempt(_ row: some StoredRow) -> PushAttempt {
        PushAttempt(
            attempt: row.int(0), startedAt: Timestamp.date(epochMilliseconds: row.int64(1)),
            finishedAt: row.optionalInt64(2).map { Timestamp.date(epochMilliseconds: $0) },
            outcome: PushAttemptResult.Outcome(rawValue: row.string(3)) ?? .inFlight,
            httpStatus: row.optionalInt64(4).map { Int($0) }, reason: row.optionalString(5))
    }
}
