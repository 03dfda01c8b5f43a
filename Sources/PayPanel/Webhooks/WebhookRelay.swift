import Foundation
import PayPanelHTTP

/// Turns outbox messages into events and delivers each to each matching endpoint, following
/// the Standard Webhooks conventions. One pass (`runPass`):
///
/// 1. **Publish.** Every unpublished outbox message (payments, checkouts) becomes one event
///    `evt_…` whose body is rendered once, now, and kept: every retry sends the same bytes. In
///    the same transaction a pending delivery is made for every enabled endpoint that wants it.
/// 2. **Claim.** Deliveries due at the clock's now are leased for the request timeout and a
///    minute: no other relay takes them meanwhile, and if this process dies after sending but
///    before recording, the lease runs out and the delivery is sent again — at-least-once,
///    with the same `webhook-id` (the event id), which is what receivers dedupe on.
/// 3. **Send**, at most `concurrency` at a time, each with `webhook-id`, `webhook-timestamp`
///    and `webhook-signature` (the current secret, and the previous one during a rotation).
/// 4. **Record** each attempt (status, duration, response code, a short error; never the secret)
///    and decide: 2xx delivered; 410 disables the endpoint; anything else, or no answer, is
///    retried on `schedule` (a 429 or 503's `Retry-After` honoured), failed after the last try.
///
/// Time comes from the injected clock, so a test fast-forwards three days of retries.
package actor WebhookRelay {
    /// Its own thread: the synchronous store calls below run on it, never on the cooperative
    /// pool (`ActorThread`); their flushes are waited for suspended (`awaitingFlush`), one per
    /// step of a pass, so the desk's calls to `publishPending` go on meanwhile.
    private let thread = ActorThread(name: "webhook-relay")
    package nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    deinit { thread.stop() }
    let store: any WebhookStore
    let endpoints: WebhookEndpoints
    let transport: any WebhookTransport
    let policy: WebhookDestinationPolicy
    let clock: any WallClock
    let schedule: WebhookRetrySchedule
    let render: @Sendable (UnpublishedMessage) -> JSONValue
    var random: SeededRandomNumberGenerator
    /// Test hook: runs after a delivery was sent and before it is recorded. Throwing from it
    /// stands for the process dying there (nothing is recorded).
    let afterSend: (@Sendable (ClaimedDelivery) throws -> Void)?
    private var passRunning = false

    /// The request timeout the spec recommends (15 to 30 s).
    package static let timeout: Duration = .seconds(15)
    /// How long a claimed delivery is left alone: the timeout and a minute to record it.
    package static let lease: TimeInterval = 15 + 60
    package static let concurrency = 8

    /// A relay on `store` (which it owns from now on: give it a connection of its own).
    /// `render` gives an outbox message's `data.object` in the API's shape. `randomSeed` makes
    /// event ids and jitter reproducible in tests.
    package init(
        store: sending any WebhookStore, box: WebhookSecretBox, transport: any WebhookTransport, policy: WebhookDestinationPolicy,
        clock: any WallClock, schedule: WebhookRetrySchedule = .standard, randomSeed: UInt64? = nil,
        render: @escaping @Sendable (UnpublishedMessage) -> JSONValue,
        afterSend: (@Sendable (ClaimedDelivery) throws -> Void)? = nil
    ) {
        var system = BatchedRandomNumberGenerator()
        self.store = store
        self.endpoints = WebhookEndpoints(store: store, box: box)
        self.transport = transport
        self.policy = policy
        self.clock = clock
        self.schedule = schedule
        self.render = render
        self.random = SeededRandomNumberGenerator(seed: randomSeed ?? system.next())
        self.afterSend = afterSend
    }

    /// Starts a pass unless one is running, and returns at once: the worker's hook, so a slow
    /// endpoint (15 s) never holds up timers and reconciliation.
    package func kick(report: @escaping @Sendable (RelayPassReport?, (any Error)?) -> Void) {
        guard !passRunning else { return }
        passRunning = true
        Task {
            do {
                let result = try await self.runPass()
                if !result.isEmpty { report(result, nil) }
            } catch {
                report(nil, error)
            }
            self.passEnded()
        }
    }

    private func passEnded() { passRunning = false }

    /// One pass: publish, claim, send, record. Returns what it did.
    @discardableResult
    package func runPass(limit: Int = 64) async throws -> RelayPassReport {
        var report = RelayPassReport()
        // Published, claimed and prepared in one turn, durable before anything is sent.
        let (published, requests) = try await store.awaitingFlush { () throws -> (Int, [(ClaimedDelivery, PreparedRequest?)]) in
            let published = try publishNow(limit: 500).count
            let now = clock.now()
            let claimed = try store.claimDueDeliveries(at: now, leaseUntil: now.addingTimeInterval(Self.lease), limit: limit)
            return (published, try claimed.map { delivery in (delivery, try prepare(delivery, at: now)) })
        }
        report.published = published
        var index = 0
        while index < requests.count {
            let batch = requests[index..<min(index + Self.concurrency, requests.count)]
            index += batch.count
            let results = await withTaskGroup(of: (Int, WebhookTransportResult, Int64, Date, String?).self) { group in
                for (offset, (_, prepared)) in batch.enumerated() {
                    let transport = self.transport
                    let clock = self.clock
                    let policy = self.policy
                    group.addTask {
                        let started = clock.now()
                        guard let prepared else { return (offset, .failed("no request"), 0, started, nil) }
                        if let refusal = prepared.refusal { return (offset, .failed("destination refused: \(refusal)"), 0, started, nil) }
                        let watch = ContinuousClock()
                        let begin = watch.now
                        let result = await transport.post(url: prepared.url, headers: prepared.headers, body: prepared.body, timeout: Self.timeout)
                        let elapsed = begin.duration(to: watch.now)
                        let milliseconds = elapsed.wholeMilliseconds
                        // URLSession looked the name up again: did it still mean a public address?
                        let suspicion = prepared.checkedName.flatMap(policy.rebindingSuspicion(checkedName:))
                        return (offset, result, milliseconds, started, suspicion)
                    }
                }
                var collected: [(Int, WebhookTransportResult, Int64, Date, String?)] = []
                for await result in group { collected.append(result) }
                return collected.sorted { $0.0 < $1.0 }
            }
            // A batch's attempts are recorded in one turn and share one flush.
            try await store.awaitingFlush {
                for (offset, result, milliseconds, started, suspicion) in results {
                    let delivery = batch[batch.startIndex + offset].0
                    try afterSend?(delivery)
                    try record(result, for: delivery, durationMilliseconds: milliseconds, startedAt: started, rebinding: suspicion, into: &report)
                }
            }
        }
        return report
    }

    /// The request of a delivery: its headers signed at `now`. A refused destination is
    /// recorded as a failed attempt, like any other failure to deliver.
    private func prepare(_ delivery: ClaimedDelivery, at now: Date) throws -> PreparedRequest {
        let body = Array(delivery.event.body.utf8)
        let timestamp = now.unixSeconds
        let secrets = try endpoints.signingSecrets(of: delivery.endpoint, at: now)
        let headers = [
            ("content-type", "application/json"), ("user-agent", "PayPanel-Webhooks/\(PayPanelVersion.current)"),
            ("webhook-id", delivery.event.id), ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", StandardWebhookSignature.header(id: delivery.event.id, timestamp: timestamp, body: body, secrets: secrets)),
        ]
        let decision = policy.check(delivery.endpoint.url)
        let refusal: String? = if case .refused(let reason) = decision { reason } else { nil }
        let checkedName: String? = if case .allowed(let name) = decision { name } else { nil }
        return PreparedRequest(url: delivery.endpoint.url, headers: headers, body: body, refusal: refusal, checkedName: checkedName)
    }

    /// Records one attempt and decides what comes next.
    private func record(
        _ result: WebhookTransportResult, for delivery: ClaimedDelivery, durationMilliseconds: Int64, startedAt: Date,
        rebinding: String? = nil, into report: inout RelayPassReport
    ) throws {
        let now = clock.now()
        let attempt = delivery.attemptsMade + 1
        var code: Int?
        var error: String?
        var retryAfter: TimeInterval?
        let outcome: WebhookAttemptRecord.Outcome
        var next: Date?
        switch result {
        case .response(let status, let after):
            code = status
            if (200...299).contains(status) {
                outcome = .delivered
            } else if status == 410 {
                outcome = .disabled
                error = "410 Gone: the endpoint asked to stop; it is disabled"
            } else {
                if status == 429 || status == 503 { retryAfter = after }
                error = "HTTP \(status)"
                outcome = .retry
            }
        case .failed(let reason):
            error = String(reason.prefix(200))
            outcome = .retry
        }
        var final = outcome
        if let rebinding {
            // Whatever the answer, it may have come from an address the check refuses.
            final = .disabled
            error = String(rebinding.prefix(400))
        } else if outcome == .retry {
            let unit = Double(random.next() % 1_000_000) / 1_000_000
            if let delay = schedule.delay(afterAttempts: attempt, unit: unit, retryAfter: retryAfter) {
                next = now.addingTimeInterval(delay)
            } else {
                final = .failed
            }
        }
        let status: WebhookDeliveryRecord.Status = switch final {
        case .delivered: .delivered
        case .retry: .pending
        case .failed, .disabled: .failed
        }
        switch final {
        case .delivered: report.delivered += 1
        case .retry: report.retrying += 1
        case .failed: report.failed += 1
        case .disabled: report.disabled += 1
        }
        try store.recordAttempt(
            WebhookAttemptRecord(
                deliveryID: delivery.deliveryID, attempt: attempt, startedAt: startedAt, durationMilliseconds: durationMilliseconds,
                responseCode: code, outcome: final, error: error),
            delivery: DeliveryUpdate(
                deliveryID: delivery.deliveryID, status: status, attempts: attempt, nextAttemptAt: next, responseCode: code, error: error, at: now),
            disableEndpoint: final == .disabled ? delivery.endpoint.id : nil)
    }

    /// Publishes every pending outbox message as an event (up to `limit` per call); returns once
    /// they are durable, suspended meanwhile.
    package func publishPending(limit: Int = 500) async throws -> [StoredEvent] {
        try await store.awaitingFlush { try publishNow(limit: limit) }
    }

    /// `publishPending` inside a caller's `awaitingFlush`.
    private func publishNow(limit: Int) throws -> [StoredEvent] {
        let messages = try store.unpublishedMessages(limit: limit)
        guard !messages.isEmpty else { return [] }
        let events = messages.map(makeEvent)
        return try store.publish(events, at: clock.now())
    }

    private func makeEvent(_ message: UnpublishedMessage) -> NewEvent {
        let id = "evt_" + Base62.random(length: 24, using: &random)
        let (type, objectID, createdAt, source, sourceID): (String, String, Date, NewEvent.Source, Int64) = switch message {
        case .payment(let message): (message.topic, message.refundID ?? message.intentID, message.createdAt, .outbox, message.id)
        case .checkout(let message): (message.topic, message.checkout.id, message.checkout.updatedAt, .checkoutOutbox, message.id)
        }
        let body = JSONValue.orderedObject([
            ("object", "event"), ("id", .string(id)), ("type", .string(type)),
            ("created", .number(createdAt.unixSeconds)),
            ("data", .orderedObject([("object", render(message))])),
        ])
        return NewEvent(id: id, type: type, objectID: objectID, createdAt: createdAt, source: source, sourceID: sourceID, body: JSONWriter.string(body))
    }
}

/// A delivery ready to send.
struct PreparedRequest: Sendable {
    let url: String
    let headers: [(String, String)]
    let body: [UInt8]
    /// Why the destination may not be posted to, or nil.
    let refusal: String?
    /// The host name whose addresses were checked, to look up again after the delivery.
    let checkedName: String?
}

/// What a pass did, for the worker's log line.
package struct RelayPassReport: Sendable, Equatable {
    package var published = 0
    package var delivered = 0
    package var retrying = 0
    package var failed = 0
    package var disabled = 0

    package init() {}

    package var isEmpty: Bool { self == RelayPassReport() }
}
