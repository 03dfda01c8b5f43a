import Foundation

/// `DeviceStore` on the payments database's `devices`, `push_deliveries` and `push_attempts`
/// tables (migration 0007). One owner, like its `Database`.
package final class SQLiteDeviceStore: DeviceStore {
    package let database: Database

    /// A store on an open, migrated payments database.
    package init(database: Database) {
        self.database = database
    }

    /// The commits and settled reads in `body` leave their flush to one wait at the end, which
    /// suspends the owner (`Database.awaitingFlush`).
    package nonisolated(nonsending) func awaitingFlush<T>(_ body: () throws -> T) async throws -> T {
        try await database.awaitingFlush(body)
    }

    // MARK: - Devices

    private static let deviceColumns = DeviceRows.deviceColumns

    package func insertDevice(_ device: Device) throws {
        try database.write {
            try database.execute(
                SharedSQL.insertDevice.sqlite,
                [device.id, device.token, device.topic, device.environment.rawValue, device.isDead ? "dead" : "active",
                 device.dead?.reason, device.dead?.at, device.createdAt])
        }
    }

    package func device(_ id: String) throws -> Device? {
        try database.queryFirst(SharedSQL.deviceByID.sqlite, [id], DeviceRows.device)
    }

    package func device(token: String, topic: String, environment: APNsEnvironment) throws -> Device? {
        try database.queryFirst(SharedSQL.deviceByToken.sqlite, [token, topic, environment.rawValue], DeviceRows.device)
    }

    package func devices() throws -> [Device] {
        try database.queryAll(SharedSQL.allDevices.sqlite, [], DeviceRows.device)
    }

    package func markDeviceDead(_ id: String, reason: String, at: Date) throws -> Bool {
        try database.write {
            try database.execute(
                SharedSQL.markDeviceDead.sqlite, [reason, at, id])
            return database.changes == 1
        }
    }

    // MARK: - Deliveries

    private static let deliveryColumns = SharedSQL.pushDeliveryColumns

    package func insertDelivery(_ delivery: NewPushDelivery, at now: Date) throws -> Int64 {
        try database.write { try insert(delivery, at: now, claimUntil: nil) }
    }

    package func insertClaimedDelivery(_ delivery: NewPushDelivery, at now: Date, claimUntil: Date) throws -> PushDelivery {
        try database.write {
            let id = try insert(delivery, at: now, claimUntil: claimUntil)
            guard let claimed = try self.delivery(id) else { throw DeviceStoreError(rowID: String(id), detail: "the delivery just inserted is missing") }
            try recordInFlight(claimed, at: now)
            return claimed
        }
    }

    /// The delivery's row, claimed (its first attempt counted) when `claimUntil` is given.
    private func insert(_ delivery: NewPushDelivery, at now: Date, claimUntil: Date?) throws -> Int64 {
        try database.execute("""
            INSERT INTO push_deliveries (apns_id, device_id, checkout_id, collapse_id, payload, expires_at, status, reason, \
            next_attempt_at, created_at, updated_at, claimed_until, attempts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [delivery.apnsID, delivery.deviceID, delivery.checkoutID, delivery.collapseID,
             String(decoding: delivery.payload, as: UTF8.self), delivery.expiresAt, delivery.status.rawValue, delivery.reason,
             delivery.status == .pending ? now : nil, now, now, claimUntil, Int64(claimUntil == nil ? 0 : 1)])
        return database.lastInsertRowID
    }

    package func delivery(_ id: Int64) throws -> PushDelivery? {
        try database.queryFirst(SharedSQL.pushDeliveryByID.sqlite, [id], Self.delivery(from:))
    }

    package func latestDelivery(checkoutID: String) throws -> PushDelivery? {
        try database.queryFirst(SharedSQL.latestPushDeliveryOfCheckout.sqlite, [checkoutID], Self.delivery(from:))
    }

    package func dueDeliveryIDs(at now: Date, limit: Int) throws -> [Int64] {
        try database.queryAll(SharedSQL.duePushDeliveryIDs.sqlite, [now, Int64(limit)]) { $0.int64(0) }
    }

    package func claimDelivery(_ id: Int64, at now: Date, claimUntil: Date) throws -> PushDelivery? {
        try database.write {
            try database.execute("""
                UPDATE push_deliveries SET claimed_until = ?2, attempts = attempts + 1, updated_at = max(updated_at, ?1)
                WHERE id = ?3 AND status = 'pending' AND next_attempt_at <= ?1 AND (claimed_until IS NULL OR claimed_until <= ?1)
                """, [now, claimUntil, id])
            guard database.changes == 1, let claimed = try delivery(id) else { return nil }
            try recordInFlight(claimed, at: now)
            return claimed
        }
    }

    /// The attempt a claim counted, on record as in flight until `recordAttempt` ends it.
    private func recordInFlight(_ claimed: PushDelivery, at now: Date) throws {
        try database.execute(
            SharedSQL.insertPushAttemptInFlight.sqlite,
            [claimed.id, claimed.attempts, now])
    }

    package func recordAttempt(_ id: Int64, attempt: Int, result: PushAttemptResult, at now: Date) throws {
        try database.write {
            try database.execute(
                SharedSQL.finishPushAttempt.sqlite,
                [now, result.outcome.rawValue, result.httpStatus, result.reason, id, attempt])
            try database.execute("""
                UPDATE push_deliveries SET status = ?, reason = ?, next_attempt_at = ?, claimed_until = NULL,
                updated_at = max(updated_at, ?) WHERE id = ?
                """,
                [result.deliveryStatus.rawValue, result.reason, result.deliveryStatus == .pending ? (result.nextAttemptAt ?? now) : nil, now, id])
        }
    }

    package func attempts(deliveryID: Int64) throws -> [PushAttempt] {
        try database.queryAll(
            SharedSQL.pushAttemptsOfDelivery.sqlite,
            [deliveryID]
        ) { row in
            DeviceRows.attempt(row)
        }
    }

    private static func delivery(from row: Row) throws -> PushDelivery {
        try DeviceRows.delivery(row)
    }
}

/// A devices or deliveries row this program cannot read back.
package struct DeviceStoreError: PayPanelError, Equatable {
    package let rowID: String
    package let detail: String

    package init(rowID: String, detail: String) {
        self.rowID = rowID
        self.detail = detail
    }

    package var code: String { "database_corrupt_row" }
    package var message: String {
        "the payments database holds a push row \(rowID) this program cannot read (\(detail)): restore the database from a backup"
    }
}
