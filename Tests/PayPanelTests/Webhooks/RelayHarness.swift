import Foundation
import PayPanel
import Synchronization
import TestSupport
import Testing

/// One relay test: a payments database of one `StoreKind` (a SQLite file in a temporary
/// directory, or a PostgreSQL schema) behind its store factory, a `ManualClock`, endpoints, and
/// a relay whose transport answers from a script and records every request.
final class RelayHarness: @unchecked Sendable {
    // Immutable after init; the relay is an actor, the transport and clock thread-safe.
    static let start = Date(timeIntervalSince1970: 1_795_939_200)  // 2026-11-29T08:00:00Z
    static let masterKey = [UInt8](repeating: 0x5a, count: 32)

    let database: FactoryUnderTest
    let clock: ManualClock
    let ledger: PaymentLedger
    let endpoints: WebhookEndpoints
    let webhookStore: any WebhookStore
    let transport = ScriptedTransport()
    var relay: WebhookRelay

    init(kind: StoreKind = .sqliteFile, allowPrivate: Bool = true, afterSend: (@Sendable (ClaimedDelivery) throws -> Void)? = nil) throws {
        clock = ManualClock(Self.start)
        database = try kind.makeFactory(clock: clock)
        ledger = PaymentLedger(store: try database.factory.openPaymentStore())
        let box = try WebhookSecretBox(masterKey: Self.masterKey)
        webhookStore = try database.factory.openWebhookStore()
        endpoints = WebhookEndpoints(store: webhookStore, box: box)
        relay = try Self.makeRelay(database: database, clock: clock, transport: transport, allowPrivate: allowPrivate, afterSend: afterSend)
    }

    /// A relay on a webhook store of its own (another server, or this one restarted).
    static func makeRelay(
        database: FactoryUnderTest, clock: ManualClock, transport: ScriptedTransport, allowPrivate: Bool, seed: UInt64 = 7,
        afterSend: (@Sendable (ClaimedDelivery) throws -> Void)? = nil
    ) throws -> WebhookRelay {
        WebhookRelay(
            store: try database.factory.openWebhookStore(),
            box: try WebhookSecretBox(masterKey: masterKey), transport: transport,
            policy: WebhookDestinationPolicy(allowPrivate: allowPrivate) { _ in [IPAddress("93.184.216.34")!] }, clock: clock, randomSeed: seed,
            render: { message in
                switch message {
                case .payment(let message): .orderedObject([("object", "payment_intent"), ("id", .string(message.intentID))])
                case .checkout(let message): message.checkout.apiJSON()
                }
            }, afterSend: afterSend)
    }

    /// A new intent: its `payment_intent.created` outbox message becomes one event.
    @discardableResult
    func createIntent() throws -> PaymentIntent {
        var random = SystemRandomNumberGenerator()
        let id = PaymentIDs.make(.intent, using: &random)
        return try ledger.create(
            try NewPaymentIntent(amount: Amount(minorUnits: 1000, currency: try Currency(code: "USD")), captureMethod: .manual), id: id, at: clock.now())
    }

    func advance(by seconds: TimeInterval) { clock.advance(by: seconds) }

    func onlyDelivery(of eventID: String) throws -> WebhookDeliveryRecord {
        let deliveries = try webhookStore.deliveries(ofEvent: eventID)
        try #require(deliveries.count == 1)
        return deliveries[0]
    }
}

/// Answers each post with the next scripted result (200 when the script is empty) and keeps
/// every request it was sent.
final class ScriptedTransport: WebhookTransport, Sendable {
    struct Sent: Sendable {
        let url: String
        let headers: [String: String]
        let body: [UInt8]
    }

    private let state = Mutex<(script: [WebhookTransportResult], byURL: [String: WebhookTransportResult], sent: [Sent])>(
        (script: [], byURL: [:], sent: []))

    func answer(_ results: WebhookTransportResult...) {
        state.withLock { $0.script += results }
    }

    /// Every post to `url` gets `result` (deliveries of one pass go out concurrently, so a
    /// script in order cannot say which endpoint gets what).
    func always(_ result: WebhookTransportResult, for url: String) {
        state.withLock { $0.byURL[url] = result }
    }

    var sent: [Sent] { state.withLock { $0.sent } }

    func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async -> WebhookTransportResult {
        state.withLock { state in
            state.sent.append(Sent(url: url, headers: Dictionary(headers, uniquingKeysWith: { $1 }), body: body))
            if let fixed = state.byURL[url] { return fixed }
            return state.script.isEmpty ? .response(status: 200, retryAfter: nil) : state.script.removeFirst()
        }
    }
}

/// Stands for the process dying between sending and recording.
struct SimulatedCrash: Error {}
