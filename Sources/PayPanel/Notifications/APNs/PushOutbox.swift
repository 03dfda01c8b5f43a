import Foundation
import PayPanelHTTP

/// Devices and the durable queue of pushes to them, above any `DeviceStore`.
///
/// A push is queued as a delivery row first, then sent: at least once, every attempt recorded
/// before the request leaves (`claimDelivery`), retried with backoff by the worker (`drain`).
/// A process that dies between sending and recording leaves the delivery claimed; once the
/// claim lapses it is sent again with the same `apns-id`, so APNs and the device can tell it
/// is the same push. An actor: one owner for its store; several processes on one database
/// are kept apart by the claim, which is taken inside a write transaction.
package actor PushOutbox {
    /// Its own thread: the synchronous store calls below block it, never the cooperative pool
    /// (`ActorThread`).
    private let thread = ActorThread(name: "push-outbox")
    package nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    deinit { thread.stop() }
    let store: any DeviceStore
    /// Nil when the server has no APNs credentials: deliveries are recorded as skipped.
    package nonisolated let provider: APNsProvider?
    let clock: any WallClock
    var random: PaymentIDGenerator

    /// Attempts before a delivery fails for good.
    package static let maximumAttempts = 8
    /// How long a claimed delivery is left to its sender before another may resend it: longer
    /// than any one attempt can take (the transport's deadline, twice with a token refresh).
    package static let claimDuration: TimeInterval = 60

    package init(store: sending any DeviceStore, provider: APNsProvider?, clock: any WallClock, randomSeed: UInt64? = nil) {
        self.store = store
        self.provider = provider
        self.clock = clock
        self.random = PaymentIDGenerator(seed: randomSeed)
    }

    // MARK: - Devices

    /// Registers `token` for `topic` in `environment`; the same registration again returns the
    /// existing device. A token APNs called dead is refused: it never works again.
    package func register(token: String, topic: String, environment: APNsEnvironment) async throws -> Device {
        guard let parsed = DeviceToken(token) else {
            throw PushError(.invalidDevice, "token must be the device token in hex (64 to 200 hex digits), as the app's registration gave it", field: "token")
        }
        guard APNsTopic.isValid(topic) else {
            throw PushError(.invalidDevice, "topic must be the app's bundle id (letters, digits, '.', '-'; at most 255 characters)", field: "topic")
        }
        try SensitiveDigits.check(topic, field: "topic")
        // The look-up and the insert in one turn of the actor: a second registration of the
        // token cannot come between them.
        return try await stored {
            if let existing = try store.device(token: parsed.hex, topic: topic, environment: environment) {
                guard !existing.isDead else {
                    throw PushError(.deviceDead, "this device token was reported dead by APNs (\(existing.dead!.reason)); register the app's new token")
                }
                return existing
            }
            let device = Device(id: random.make(.device), token: parsed.hex, topic: topic, environment: environment, dead: nil, createdAt: clock.now())
            try store.insertDevice(device)
            return device
        }
    }

    package func device(_ id: String) async throws -> Device? { try await stored { try store.device(id) } }

    package func devices() async throws -> [Device] { try await stored { try store.devices() } }

    // MARK: - Deliveries

    /// Queues `payload` for the device `deviceID` and makes the first attempt at once.
    /// Without a provider the delivery is recorded as skipped (`apns_not_configured`).
    ///
    /// The delivery is written already claimed by this call, its first attempt in flight, in
    /// one write (`insertClaimedDelivery`): a worker, of this server or of another one on the
    /// same database, never finds it unclaimed between the insert and the send, so the request
    /// that queued a push always gets APNs' answer to it (or its own failure to reach APNs).
    package func push(_ payload: [UInt8], to deviceID: String, checkoutID: String?, collapseID: String?, expiresAt: Date?) async throws
        -> PushDelivery
    {
        // The device's check and the insert in one turn of the actor (nothing of this outbox,
        // such as an attempt marking the device dead, comes between them); the push is sent
        // only once its claimed row is durable.
        let startedAt = clock.now()
        let queued = try await stored { () throws -> PushDelivery in
            guard let device = try store.device(deviceID) else {
                throw PushError(.deviceNotFound, "no device \(JSONWriter.quoted(SensitiveDigits.redacted(String(deviceID.prefix(64))))): register it with POST /v1/devices first")
            }
            guard !device.isDead else {
                throw PushError(.deviceDead, "the device \(device.id) is dead (APNs: \(device.dead!.reason)); the app must register its new token")
            }
            let apnsID = UUID().uuidString.lowercased()
            let new = NewPushDelivery(
                apnsID: apnsID, deviceID: device.id, checkoutID: checkoutID, collapseID: collapseID, payload: payload, expiresAt: expiresAt,
                status: provider == nil ? .skipped : .pending, reason: provider == nil ? "apns_not_configured" : nil)
            guard provider != nil else { return try require(try store.insertDelivery(new, at: startedAt)) }
            return try store.insertClaimedDelivery(new, at: startedAt, claimUntil: startedAt.addingTimeInterval(Self.claimDuration))
        }
        guard let provider else { return queued }
        return try await finish(queued, provider: provider, startedAt: startedAt)
    }

    /// The latest push to a checkout.
    package func latestDelivery(checkoutID: String) async throws -> PushDelivery? {
        try await stored { try store.latestDelivery(checkoutID: checkoutID) }
    }

    package func delivery(_ id: Int64) async throws -> PushDelivery? { try await stored { try store.delivery(id) } }

    package func attempts(deliveryID: Int64) async throws -> [PushAttempt] { try await stored { try store.attempts(deliveryID: deliveryID) } }

    /// The worker's pass: every due delivery gets an attempt. Returns the deliveries attempted,
    /// in their new state.
    package func drain(limit: Int = 100) async throws -> [PushDelivery] {
        guard provider != nil else { return [] }
        var attempted: [PushDelivery] = []
        let now = clock.now()
        for id in try await stored({ try store.dueDeliveryIDs(at: now, limit: limit) }) {
            if let delivery = try await attempt(id) { attempted.append(delivery) }
        }
        return attempted
    }

    /// Claims delivery `id` and sends it; nil when another sender holds it or it is not due.
    func attempt(_ id: Int64) async throws -> PushDelivery? {
        guard let provider else { return nil }
        let startedAt = clock.now()
        guard let claimed = try await stored({ try store.claimDelivery(id, at: startedAt, claimUntil: startedAt.addingTimeInterval(Self.claimDuration)) }) else {
            return nil
        }
        return try await finish(claimed, provider: provider, startedAt: startedAt)
    }

    /// Sends a delivery this outbox has claimed, records how the attempt ended, and returns
    /// the delivery in its new state.
    private func finish(_ claimed: PushDelivery, provider: APNsProvider, startedAt: Date) async throws -> PushDelivery {
        let result = try await send(claimed, provider: provider, at: startedAt)
        let now = clock.now()
        return try await stored {
            try store.recordAttempt(claimed.id, attempt: claimed.attempts, result: result, at: max(now, startedAt))
            if result.outcome == .deviceDead, result.httpStatus != nil {
                _ = try store.markDeviceDead(claimed.deviceID, reason: result.reason ?? "Unregistered", at: result.invalidSince ?? max(now, startedAt))
            }
            return try require(claimed.id)
        }
    }

    /// One attempt's result; nothing is written here.
    private func send(_ delivery: PushDelivery, provider: APNsProvider, at now: Date) async throws -> PushAttemptResult {
        guard let device = try await stored({ try store.device(delivery.deviceID) }) else {
            return PushAttemptResult(outcome: .rejected, httpStatus: nil, reason: "device_missing", deliveryStatus: .failed, nextAttemptAt: nil)
        }
        if let dead = device.dead {
            return PushAttemptResult(outcome: .deviceDead, httpStatus: nil, reason: dead.reason, deliveryStatus: .deviceDead, nextAttemptAt: nil)
        }
        if let expiresAt = delivery.expiresAt, expiresAt <= now {
            return PushAttemptResult(outcome: .rejected, httpStatus: nil, reason: "expired", deliveryStatus: .failed, nextAttemptAt: nil)
        }
        guard device.environment == provider.environment else {
            // APNs would answer BadDeviceToken and the token would be thought dead: it is not.
            return PushAttemptResult(
                outcome: .rejected, httpStatus: nil, reason: "environment_mismatch", deliveryStatus: .failed, nextAttemptAt: nil)
        }
        let notification: APNsNotification
        do {
            notification = try APNsNotification(
                deviceToken: device.token, topic: device.topic, apnsID: delivery.apnsID, collapseID: delivery.collapseID,
                expiration: delivery.expiresAt, payload: delivery.payload)
        } catch {
            return PushAttemptResult(outcome: .rejected, httpStatus: nil, reason: "invalid_request", deliveryStatus: .failed, nextAttemptAt: nil)
        }
        switch await provider.send(notification) {
        case .answered(let response):
            return Self.result(for: response, attempts: delivery.attempts, now: now)
        case .unreachable:
            return Self.retryOrGiveUp(reason: "unreachable", httpStatus: nil, outcome: .unreachable, attempts: delivery.attempts, now: now)
        case .signingFailed:
            return PushAttemptResult(outcome: .tokenRefused, httpStatus: nil, reason: "signing_failed", deliveryStatus: .failed, nextAttemptAt: nil)
        }
    }

    /// An answer of APNs as the attempt's result (Apple's reason table, `APNsReasonTable`).
    static func result(for response: APNsResponse, attempts: Int, now: Date) -> PushAttemptResult {
        let reason = response.reason ?? (response.status == 200 ? nil : "HTTP \(response.status)")
        switch response.action {
        case .sent:
            return PushAttemptResult(outcome: .sent, httpStatus: 200, reason: nil, deliveryStatus: .sent, nextAttemptAt: nil)
        case .deviceDead:
            return PushAttemptResult(outcome: .deviceDead, httpStatus: response.status, reason: reason, deliveryStatus: .deviceDead,
                                     nextAttemptAt: nil, invalidSince: response.invalidSince)
        case .refreshProviderToken:
            // The provider already made a new token and was refused again: fail loudly.
            return PushAttemptResult(outcome: .tokenRefused, httpStatus: response.status, reason: reason, deliveryStatus: .failed, nextAttemptAt: nil)
        case .reject:
            return PushAttemptResult(outcome: .rejected, httpStatus: response.status, reason: reason, deliveryStatus: .failed, nextAttemptAt: nil)
        case .retry:
            return retryOrGiveUp(reason: reason ?? "retry", httpStatus: response.status, outcome: .retry, attempts: attempts, now: now)
        }
    }

    /// Pending again after a backoff of 5 s doubling per attempt (at most 10 min), or failed
    /// once `maximumAttempts` were made.
    static func retryOrGiveUp(reason: String, httpStatus: Int?, outcome: PushAttemptResult.Outcome, attempts: Int, now: Date)
        -> PushAttemptResult
    {
        guard attempts < maximumAttempts else {
            return PushAttemptResult(outcome: outcome, httpStatus: httpStatus, reason: reason, deliveryStatus: .failed, nextAttemptAt: nil)
        }
        return PushAttemptResult(outcome: outcome, httpStatus: httpStatus, reason: reason, deliveryStatus: .pending,
                                 nextAttemptAt: now.addingTimeInterval(backoff(afterAttempt: attempts)))
    }

    /// Seconds to wait after attempt `attempt` (1-based): 5, 10, 20, … at most 600.
    package static func backoff(afterAttempt attempt: Int) -> TimeInterval {
        min(600, 5 * pow(2, Double(max(0, attempt - 1))))
    }

    /// Runs `body`, calls of the store, in one turn of this actor, then awaits the flushes they
    /// need suspended (`DeviceStore.awaitingFlush`): the outbox's other callers (a push per
    /// checkout created for a device, the worker's pass) go on meanwhile, and their commits
    /// share the flush. Nothing is answered or sent before the wait returns.
    private func stored<T>(_ body: () throws -> T) async throws -> T {
        try await store.awaitingFlush(body)
    }

    /// Inside `stored`: the delivery `id` as the store has it now.
    private func require(_ id: Int64) throws -> PushDelivery {
        guard let delivery = try store.delivery(id) else { throw DeviceStoreError(rowID: String(id), detail: "the delivery vanished") }
        return delivery
    }
}

/// Why a push or a device registration was refused.
package struct PushError: PayPanelError, Equatable {
    package enum Kind: String, Sendable {
        case invalidDevice = "invalid_device"
        case deviceNotFound = "device_not_found"
        case deviceDead = "device_dead"
    }

    package let kind: Kind
    package let message: String
    /// The registration's field that was wrong (`token`, `topic`), for an API's `param`.
    package let field: String?
    package var code: String { kind.rawValue }

    package init(_ kind: Kind, _ message: String, field: String? = nil) {
        self.kind = kind
        self.message = message
        self.field = field
    }
}
