import Foundation

/// The storage boundary of push devices and push deliveries, beside `PaymentStore`.
/// Adopters hold the SQL and keep `PaymentStore`'s rules (serializable writes, epoch-millisecond
/// times, errors without bound values). The rules above it are `PushOutbox`'s.
///
/// Adopters: `SQLiteDeviceStore` and, with the `PostgreSQL` trait, the PostgreSQL store's
/// (target `PayPanelPostgres`).
package protocol DeviceStore: FlushAwaitingStore {
    func insertDevice(_ device: Device) throws
    func device(_ id: String) throws -> Device?
    /// The registration of `token` for `topic` in `environment`, dead or alive.
    func device(token: String, topic: String, environment: APNsEnvironment) throws -> Device?
    /// Every device, oldest first.
    func devices() throws -> [Device]
    /// Marks the device dead; false when it already was (the first reason stays).
    func markDeviceDead(_ id: String, reason: String, at: Date) throws -> Bool

    /// Inserts a delivery, queued for the worker (or skipped); returns its row id.
    func insertDelivery(_ delivery: NewPushDelivery, at: Date) throws -> Int64
    /// In one write: inserts a pending delivery already claimed until `claimUntil` by its
    /// inserter, its first attempt counted and recorded in flight, as `claimDelivery` leaves
    /// one. No worker, of this server or another on the same database, can take it between
    /// the insert and the send.
    func insertClaimedDelivery(_ delivery: NewPushDelivery, at now: Date, claimUntil: Date) throws -> PushDelivery
    func delivery(_ id: Int64) throws -> PushDelivery?
    /// The latest delivery to a checkout, or nil.
    func latestDelivery(checkoutID: String) throws -> PushDelivery?
    /// Ids of pending deliveries due at `now` whose claim (if any) has lapsed, oldest first.
    func dueDeliveryIDs(at now: Date, limit: Int) throws -> [Int64]
    /// In one write: re-checks that `id` is pending, due and unclaimed, claims it until
    /// `claimUntil`, counts the attempt and records it in flight. Nil when someone else has it.
    func claimDelivery(_ id: Int64, at now: Date, claimUntil: Date) throws -> PushDelivery?
    /// Records how attempt `attempt` of delivery `id` ended, and the delivery's new state.
    func recordAttempt(_ id: Int64, attempt: Int, result: PushAttemptResult, at now: Date) throws
    /// Every attempt of a delivery, first first.
    func attempts(deliveryID: Int64) throws -> [PushAttempt]
}

/// One APNs registration of an app on a device.
package struct Device: Sendable, Equatable {
    /// `dev_…`.
    package let id: String
    /// Lower-case hex.
    package let token: String
    package let topic: String
    package let environment: APNsEnvironment
    /// Set when APNs said the token will never work again.
    package var dead: (reason: String, at: Date)?
    package let createdAt: Date

    package init(id: String, token: String, topic: String, environment: APNsEnvironment, dead: (reason: String, at: Date)?, createdAt: Date) {
        self.id = id
        self.token = token
        self.topic = topic
        self.environment = environment
        self.dead = dead
        self.createdAt = createdAt
    }

    package var isDead: Bool { dead != nil }

    package static func == (lhs: Device, rhs: Device) -> Bool {
        lhs.id == rhs.id && lhs.token == rhs.token && lhs.topic == rhs.topic && lhs.environment == rhs.environment
            && lhs.dead?.reason == rhs.dead?.reason && lhs.dead?.at == rhs.dead?.at && lhs.createdAt == rhs.createdAt
    }
}

/// Where a delivery stands.
package enum PushDeliveryStatus: String, Sendable, CaseIterable {
    /// Not answered for good yet: due at `nextAttemptAt`.
    case pending
    /// APNs accepted it (200).
    case sent
    /// APNs refused it for a reason resending cannot fix, retries ran out, or it expired.
    case failed
    /// The device token is dead; the device is marked so.
    case deviceDead = "device_dead"
    /// Not sent: the server has no APNs credentials.
    case skipped
}

/// A delivery about to be queued.
package struct NewPushDelivery: Sendable, Equatable {
    package let apnsID: String
    package let deviceID: String
    package let checkoutID: String?
    package let collapseID: String?
    package let payload: [UInt8]
    package let expiresAt: Date?
    /// `.pending`, or `.skipped` with a reason.
    package let status: PushDeliveryStatus
    package let reason: String?

    package init(apnsID: String, deviceID: String, checkoutID: String?, collapseID: String?, payload: [UInt8], expiresAt: Date?,
                status: PushDeliveryStatus = .pending, reason: String? = nil) {
        self.apnsID = apnsID
        self.deviceID = deviceID
        self.checkoutID = checkoutID
        self.collapseID = collapseID
        self.payload = payload
        self.expiresAt = expiresAt
        self.status = status
        self.reason = reason
    }
}

/// A stored delivery.
package struct PushDelivery: Sendable, Equatable {
    package let id: Int64
    package let apnsID: String
    package let deviceID: String
    package let checkoutID: String?
    package let collapseID: String?
    package let payload: [UInt8]
    package let expiresAt: Date?
    package var status: PushDeliveryStatus
    /// APNs' reason, or PayPanel's (`retries_exhausted`, `expired`, `apns_not_configured`).
    package var reason: String?
    package var attempts: Int
    package var nextAttemptAt: Date?

    package init(id: Int64, apnsID: String, deviceID: String, checkoutID: String?, collapseID: String?, payload: [UInt8],
                expiresAt: Date?, status: PushDeliveryStatus, reason: String?, attempts: Int, nextAttemptAt: Date?) {
        self.id = id
        self.apnsID = apnsID
        self.deviceID = deviceID
        self.checkoutID = checkoutID
        self.collapseID = collapseID
        self.payload = payload
        self.expiresAt = expiresAt
        self.status = status
        self.reason = reason
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
    }
}

/// How one attempt ended, as stored.
package struct PushAttemptResult: Sendable, Equatable {
    package enum Outcome: String, Sendable {
        case inFlight = "in_flight"
        case sent
        case deviceDead = "device_dead"
        case retry
        case rejected
        case unreachable
        case tokenRefused = "token_refused"
    }

    package let outcome: Outcome
    package let httpStatus: Int?
    package let reason: String?
    /// The delivery's state after this attempt.
    package let deliveryStatus: PushDeliveryStatus
    /// When to try again (with `.pending`).
    package let nextAttemptAt: Date?
    /// 410's `timestamp`: since when APNs knows the token is invalid (the device's dead time).
    package let invalidSince: Date?

    package init(outcome: Outcome, httpStatus: Int?, reason: String?, deliveryStatus: PushDeliveryStatus, nextAttemptAt: Date?,
                invalidSince: Date? = nil) {
        self.invalidSince = invalidSince
        self.outcome = outcome
        self.httpStatus = httpStatus
        self.reason = reason
        self.deliveryStatus = deliveryStatus
        self.nextAttemptAt = nextAttemptAt
    }
}

/// One recorded attempt.
package struct PushAttempt: Sendable, Equatable {
    package let attempt: Int
    package let startedAt: Date
    package let finishedAt: Date?
    package let outcome: PushAttemptResult.Outcome
    package let httpStatus: Int?
    package let reason: String?
}
