#if PostgreSQL
import Foundation
import PayPanel

/// `DeviceStore` on PostgreSQL (Migrations/postgresql/0007): devices, push deliveries and
/// their attempts in the payments store's schema, on its connection pool.
///
/// The claim of a delivery is `SELECT … FOR UPDATE SKIP LOCKED` on the row, re-checking that it
/// is pending, due and unclaimed, then the claim, the attempt count and the in-flight attempt
/// row, in one transaction: of several servers' workers one takes it, the others pass over it
/// without waiting, and once the claim commits nobody takes it until `claimed_until`.
public final class PostgreSQLDeviceStore: DeviceStore {
    let transactions: PostgreSQLPaymentStore
    typealias S = PostgreSQLStatement

    /// A store on the schema `payments` works in (it is migrated by then).
    public init(sharingConnectionsWith payments: PostgreSQLPaymentStore) {
        transactions = payments
    }

    /// One statement, its own transaction.
    @discardableResult
    private func single(_ statement: S, _ values: [any DatabaseBindable]) throws -> PostgreSQLResult {
        try transactions.pool.withConnection { try $0.execute(statement, values) }
    }

    // MARK: - Devices

    static let deviceColumns = DeviceRows.deviceColumns
    static let insertDeviceStatement = S("devices.insert", SharedSQL.insertDevice.postgreSQL)
    static let deviceByID = S("devices.by_id", SharedSQL.deviceByID.postgreSQL)
    static let deviceByToken = S("devices.by_token", SharedSQL.deviceByToken.postgreSQL)
    static let allDevices = S("devices.all", SharedSQL.allDevices.postgreSQL)
    static let markDead = S(
        "devices.mark_dead", SharedSQL.markDeviceDead.postgreSQL)

    package func insertDevice(_ device: Device) throws {
        try single(Self.insertDeviceStatement, [
            device.id, device.token, device.topic, device.environment.rawValue, device.isDead ? "dead" : "active",
            device.dead?.reason, device.dead?.at, device.createdAt,
        ])
    }

    package func device(_ id: String) throws -> Device? {
        try single(Self.deviceByID, [id]).rows.first.map(DeviceRows.device)
    }

    package func device(token: String, topic: String, environment: APNsEnvironment) throws -> Device? {
        try single(Self.deviceByToken, [token, topic, environment.rawValue]).rows.first.map(DeviceRows.device)
    }

    package func devices() throws -> [Device] {
        try single(Self.allDevices, []).rows.map(DeviceRows.device)
    }

    public func markDeviceDead(_ id: String, reason: String, at: Date) throws -> Bool {
        try single(Self.markDead, [reason, at, id]).affectedRows == 1
    }

    // MARK: - Deliveries

    static let deliveryColumns = SharedSQL.pushDeliveryColumns
    static let insertDeliveryStatement = S("push.insert_delivery", """
        INSERT INTO push_deliveries (apns_id, device_id, checkout_id, collapse_id, payload, expires_at, status, reason,
            next_attempt_at, created_at, updated_at, claimed_until, attempts) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
        RETURNING \(deliveryColumns)
        """)
    static let deliveryByID = S("push.delivery_by_id", SharedSQL.pushDeliveryByID.postgreSQL)
    static let latestOfCheckout = S("push.latest_of_checkout", SharedSQL.latestPushDeliveryOfCheckout.postgreSQL)
    static let dueIDs = S("push.due", SharedSQL.duePushDeliveryIDs.postgreSQL)

    package func insertDelivery(_ delivery: NewPushDelivery, at now: Date) throws -> Int64 {
        try single(Self.insertDeliveryStatement, Self.insertValues(delivery, at: now, claimUntil: nil)).rows.first?.int64(0) ?? 0
    }

    package func insertClaimedDelivery(_ delivery: NewPushDelivery, at now: Date, claimUntil: Date) throws -> PushDelivery {
        try transactions.withTransaction(writing: true) { connection in
            guard let row = try connection.execute(Self.insertDeliveryStatement, Self.insertValues(delivery, at: now, claimUntil: claimUntil)).rows.first
            else { throw DeviceStoreError(rowID: "", detail: "the insert of a delivery returned no row") }
            let claimed = try Self.delivery(from: row)
            try connection.execute(Self.insertInFlight, [claimed.id, claimed.attempts, now])
            return claimed
        }
    }

    /// The insert's values: the delivery's row, claimed (its first attempt counted) when
    /// `claimUntil` is given.
    private static func insertValues(_ delivery: NewPushDelivery, at now: Date, claimUntil: Date?) -> [any DatabaseBindable] {
        [
            delivery.apnsID, delivery.deviceID, delivery.checkoutID, delivery.collapseID, String(decoding: delivery.payload, as: UTF8.self),
            delivery.expiresAt, delivery.status.rawValue, delivery.reason, delivery.status == .pending ? now : nil, now, now,
            claimUntil, Int64(claimUntil == nil ? 0 : 1),
        ]
    }

    package func delivery(_ id: Int64) throws -> PushDelivery? {
        try single(Self.deliveryByID, [id]).rows.first.map(Self.delivery(from:))
    }

    package func latestDelivery(checkoutID: String) throws -> PushDelivery? {
        try single(Self.latestOfCheckout, [checkoutID]).rows.first.map(Self.delivery(from:))
    }

    public func dueDeliveryIDs(at now: Date, limit: Int) throws -> [Int64] {
        try single(Self.dueIDs, [now, Int64(limit)]).rows.map { $0.int64(0) }
    }

    static let lockClaimable = S("push.lock_claimable", """
        SELECT 1 FROM push_deliveries WHERE id = $1 AND status = 'pending' AND next_attempt_at <= $2
        AND (claimed_until IS NULL OR claimed_until <= $2) FOR UPDATE SKIP LOCKED
        """)
    static let claim = S("push.claim", """
        UPDATE push_deliveries SET claimed_until = $1, attempts = attempts + 1, updated_at = GREATEST(updated_at, $2) WHERE id = $3
        RETURNING \(deliveryColumns)
        """)
    static let insertInFlight = S(
        "push.insert_in_flight", SharedSQL.insertPushAttemptInFlight.postgreSQL)

    package func claimDelivery(_ id: Int64, at now: Date, claimUntil: Date) throws -> PushDelivery? {
        try transactions.withTransaction(writing: true) { connection in
            guard !(try connection.execute(Self.lockClaimable, [id, now]).rows.isEmpty),
                  let row = try connection.execute(Self.claim, [claimUntil, now, id]).rows.first
            else { return nil }
            let claimed = try Self.delivery(from: row)
            try connection.execute(Self.insertInFlight, [id, claimed.attempts, now])
            return claimed
        }
    }

    static let finishAttempt = S("push.finish_attempt", SharedSQL.finishPushAttempt.postgreSQL)
    static let settleDelivery = S("push.settle_delivery", """
        UPDATE push_deliveries SET status = $1, reason = $2, next_attempt_at = $3, claimed_until = NULL,
            updated_at = GREATEST(updated_at, $4) WHERE id = $5
        """)

    package func recordAttempt(_ id: Int64, attempt: Int, result: PushAttemptResult, at now: Date) throws {
        try transactions.withTransaction(writing: true) { connection in
            try connection.execute(Self.finishAttempt, [now, result.outcome.rawValue, result.httpStatus, result.reason, id, attempt])
            try connection.execute(Self.settleDelivery, [
                result.deliveryStatus.rawValue, result.reason, result.deliveryStatus == .pending ? (result.nextAttemptAt ?? now) : nil, now, id,
            ])
        }
    }

    static let attemptsOfDelivery = S("push.attempts_of_delivery", SharedSQL.pushAttemptsOfDelivery.postgreSQL)

    package func attempts(deliveryID: Int64) throws -> [PushAttempt] {
        try single(Self.attemptsOfDelivery, [deliveryID]).rows.map { row in
            DeviceRows.attempt(row)
        }
    }

    private static func delivery(from row: PostgreSQLRow) throws -> PushDelivery {
        try DeviceRows.delivery(row)
    }
}
#endif
