import Foundation
import MockProcessor
import PayPanel
import Testing
import TestSupport

/// `serve --processor … --public-url auto` and `processor serve`, two child processes on one
/// injected clock (`--now`): serve registers for the processor's webhooks at start, and the
/// processor's webhook settles an unknown authorization before the worker's lookup would.
@Suite("processor webhooks into serve, end to end")
struct ProcessorWebhooksEndToEndTests {
    static let now = "2026-12-01T10:00:00Z"
    static let start = Date(timeIntervalSince1970: 1_796_119_200)
    static let processorKey = "sk_test_e2e_webhooks"

    static func startBackend(processorPort: Int, directory: TemporaryDirectory, processorTimeout: Int = 2) async throws -> BackendOverHTTPTests.Backend {
        let server = try await onThread {
            try ServedProcess(
                arguments: ["serve", "--port", "0", "--db", directory.file("payments.sqlite"), "--now", now,
                            // The worker's lookup would settle the unknown outcome too: make it wait an hour.
                            "--worker-interval", "3600000",
                            "--processor", "http://127.0.0.1:\(processorPort)", "--processor-key", processorKey, "--processor-timeout", String(processorTimeout),
                            "--public-url", "auto"],
                directory: directory)
        }
        let range = try #require(server.stderr.range(of: #"sk_[A-Za-z0-9]+"#, options: .regularExpression))
        return BackendOverHTTPTests.Backend(server: server, key: String(server.stderr[range]))
    }

    /// Waits (bounded) until the intent leaves `processing`; returns its status.
    static func settledStatus(_ backend: BackendOverHTTPTests.Backend, _ id: String) async throws -> String {
        let deadline = Date().addingTimeInterval(60)
        var status = "processing"
        while status == "processing", Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            status = try await backend.call("GET", "/v1/payment_intents/\(id)").status_
        }
        return status
    }

    @Test("An unknown authorization is settled by the processor's webhook before any lookup; a forged, a duplicate and a stale one change nothing; the ledgers agree")
    func webhookSettlesUnknownAuthorization() async throws {
        let directory = try TemporaryDirectory("procwebhooks-e2e")
        let processorProcess = try await ServedProcess.processor(directory: directory)
        let backend = try await Self.startBackend(processorPort: processorProcess.port, directory: directory)
        #expect(backend.server.stderr.contains(#""processor_webhooks":"registered""#), "\(backend.server.stderr)")
        #expect(!backend.server.stderr.contains("whsec_"), "the secret is never logged")
        let processor = StripeTestClient(port: processorProcess.port, key: Self.processorKey)
        let endpoints = try await processor.call("GET", "/v1/webhook_endpoints")["data"]?.arrayValue ?? []
        #expect(endpoints.compactMap { $0["url"]?.stringValue } == ["http://127.0.0.1:\(backend.server.port)/v1/processor/webhooks"])

        // A: SLOW_20S with a 2 s processor timeout: serve records the outcome as unknown.
        let a = try await backend.call("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD","capture_method":"manual"}"#)
        let confirmed = try await backend.call("POST", "/v1/payment_intents/\(a.id)/confirm", json: BackendOverHTTPTests.card("4242424242424242", holder: "SLOW_20S"))
        #expect(confirmed.status_ == "processing", "\(confirmed.text)")
        let processorIntents = try await processor.call("GET", "/v1/payment_intents", [("limit", "100")])["data"]?.arrayValue ?? []
        let attemptA = try #require(processorIntents.first?["metadata"]?["attempt_id"]?.stringValue)
        #expect(try await processor.call("GET", "/_mock/webhook_deliveries")["data"]?.arrayValue?.count == 1, "one event, not due yet")

        // Forged: the right shape about A, signed with another secret — refused, nothing changed.
        let forgedBody = Array(#"{"id":"evt_forged","object":"event","type":"payment_intent.amount_capturable_updated","created":1796119200,"data":{"object":{"id":"pi_forged","object":"payment_intent","amount":1000,"amount_capturable":1000,"amount_received":0,"currency":"usd","status":"requires_capture","metadata":{"attempt_id":"\#(attemptA)"}}}}"#.utf8)
        let forged = try await StripeTestClient(port: backend.server.port, key: backend.key).call(
            "POST", "/v1/processor/webhooks", rawBody: forgedBody,
            headers: ["Content-Type": "application/json",
                      "Stripe-Signature": StripeWebhookSignature.header(timestamp: 1_796_119_200, body: forgedBody, secret: "whsec_forged_by_someone_else")])
        #expect(forged.status == 400, "\(forged.text)")
        #expect(try await backend.call("GET", "/v1/payment_intents/\(a.id)").status_ == "processing")

        // The processor's clock reaches the moment the slow answer went out: the event is sent,
        // and serve applies it as the reconciliation answer (the worker has not run).
        #expect(try await processor.call("POST", "/_mock/clock/advance", [("seconds", "20")]).status == 200)
        #expect(try await Self.settledStatus(backend, a.id) == "requires_capture")
        var deliveries = try await ProcessorWebhookSendingTests.deliveries(processor) { $0.first?["status"]?.stringValue == "delivered" }
        let eventA = try #require(deliveries.first?["event"]?.stringValue)
        #expect(deliveries.first?["status"]?.stringValue == "delivered" && deliveries.first?["last_status"]?.int64Value == 200, "\(deliveries)")
        #expect(!backend.server.stderr.contains(#""lookups":1"#), "settled by the webhook, not by a lookup")

        // Duplicate: the processor sends the same event again — acknowledged (200), ignored.
        #expect(try await processor.call("POST", "/_mock/events/\(eventA)/resend").status == 200)
        deliveries = try await ProcessorWebhookSendingTests.deliveries(processor) {
            $0.first?["attempts"]?.int64Value == 2 && $0.first?["status"]?.stringValue == "delivered"
        }
        #expect(deliveries.first?["attempts"]?.int64Value == 2 && deliveries.first?["last_status"]?.int64Value == 200, "\(deliveries)")
        let afterDuplicate = try await backend.call("GET", "/v1/payment_intents/\(a.id)")
        #expect(afterDuplicate.status_ == "requires_capture", "\(afterDuplicate.text)")

        // B: the same, but the processor's clock runs 420 s ahead of serve's before it is sent:
        // the timestamp is stale (more than 300 s), refused, nothing changed.
        let b = try await backend.call("POST", "/v1/payment_intents", json: #"{"amount":500,"currency":"USD","capture_method":"manual"}"#)
        let confirmedB = try await backend.call("POST", "/v1/payment_intents/\(b.id)/confirm", json: BackendOverHTTPTests.card("4242424242424242", holder: "SLOW_20S"))
        #expect(confirmedB.status_ == "processing", "\(confirmedB.text)")
        #expect(try await processor.call("POST", "/_mock/clock/advance", [("seconds", "420")]).status == 200)
        deliveries = try await ProcessorWebhookSendingTests.deliveries(processor) { rows in
            rows.contains { $0["event"]?.stringValue != eventA && ($0["attempts"]?.int64Value ?? 0) >= 1 }
        }
        let staleDelivery = deliveries.first { $0["event"]?.stringValue != eventA }
        #expect(staleDelivery?["last_status"]?.int64Value == 400 && staleDelivery?["status"]?.stringValue == "pending", "\(deliveries)")
        #expect(try await backend.call("GET", "/v1/payment_intents/\(b.id)").status_ == "processing")

        // Both sides agree: A authorized once and recorded so; B's answer is the one in flight.
        try await Self.expectLedgersAgreeThenStop(backend, processorProcess, processor, directory, at: Self.start.addingTimeInterval(440))
    }
}

extension ProcessorWebhooksEndToEndTests {
    @Test("A webhook that arrives while serve's own request still waits is a 409 (deferred, not recorded); the processor's retry settles the call once that request gave up")
    func deferredWebhookIsRetried() async throws {
        let directory = try TemporaryDirectory("procwebhooks-e2e")
        let processorProcess = try await ServedProcess.processor(directory: directory)
        // 30 s: the processor's event (sent at once) surely arrives while serve still waits.
        let backend = try await Self.startBackend(processorPort: processorProcess.port, directory: directory, processorTimeout: 30)
        let processor = StripeTestClient(port: processorProcess.port, key: Self.processorKey)
        let created = try await backend.call("POST", "/v1/payment_intents", json: #"{"amount":1000,"currency":"USD","capture_method":"manual"}"#)
        let confirming = Task {
            try await backend.call("POST", "/v1/payment_intents/\(created.id)/confirm", json: BackendOverHTTPTests.card("4242424242424242", holder: "TIMEOUT_THEN_APPROVED"))
        }
        let deferred = try await ProcessorWebhookSendingTests.deliveries(processor) { $0.first?["last_status"]?.int64Value == 409 }
        #expect(deferred.first?["last_status"]?.int64Value == 409 && deferred.first?["status"]?.stringValue == "pending", "\(deferred)")
        let confirmed = try await confirming.value
        #expect(confirmed.status_ == "processing", "serve's request gave up: \(confirmed.text)")
        // The retry is due 5 s later on the processor's test clock.
        #expect(try await processor.call("POST", "/_mock/clock/advance", [("seconds", "5")]).status == 200)
        #expect(try await Self.settledStatus(backend, created.id) == "requires_capture")
        let delivered = try await ProcessorWebhookSendingTests.deliveries(processor) { $0.first?["status"]?.stringValue == "delivered" }
        #expect(delivered.first?["attempts"]?.int64Value == 2 && delivered.first?["last_status"]?.int64Value == 200, "\(delivered)")
        try await Self.expectLedgersAgreeThenStop(backend, processorProcess, processor, directory, at: Self.start.addingTimeInterval(5))
    }

    /// The end of both tests: the two ledgers agree at `now` on the processor's clock, then
    /// both servers stop cleanly.
    static func expectLedgersAgreeThenStop(
        _ backend: BackendOverHTTPTests.Backend, _ processorProcess: ServedProcess, _ processor: StripeTestClient,
        _ directory: TemporaryDirectory, at now: Date
    ) async throws {
        let disagreements = try await WireLedger.disagreements(
            processor: processor, ledgerPath: directory.file("processor.sqlite"), databasePath: directory.file("payments.sqlite"), now: now)
        #expect(disagreements.isEmpty, "\(disagreements)")
        #expect(await backend.server.terminate() == 0)
        #expect(await processorProcess.terminate() == 0)
    }
}

/// `LedgerAgreement` across the wire: the mock's ledger names calls by its own references
/// (`acct_…/pi_…/1`, `acct_…/re_…`); its intents' and refunds' metadata give PayPanel's attempt
/// and refund ids, which the comparison needs.
enum WireLedger {
    static func disagreements(
        processor: StripeTestClient, ledgerPath: String, databasePath: String, now: Date
    ) async throws -> [String] {
        var attempts: [String: String] = [:]
        for intent in try await processor.call("GET", "/v1/payment_intents", [("limit", "100")])["data"]?.arrayValue ?? [] {
            if let id = intent["id"]?.stringValue, let attempt = intent["metadata"]?["attempt_id"]?.stringValue { attempts[id] = attempt }
        }
        var refunds: [String: String] = [:]
        for refund in try await processor.call("GET", "/v1/refunds", [("limit", "100")])["data"]?.arrayValue ?? [] {
            if let id = refund["id"]?.stringValue, let reference = refund["metadata"]?["refund_reference"]?.stringValue { refunds[id] = reference }
        }
        let clock = ManualClock(now)
        let entries = try ProcessorLedger(path: ledgerPath, clock: clock).entries(now: now)
        var effects: [ProcessorEffect] = []
        for entry in entries {
            // acct_…/pi_…/n → pi_…; acct_…/re_… → re_…
            let parts = entry.reference.split(separator: "/")
            // An entry no intent explains keeps its raw reference: the comparison reports it.
            let attempt = parts.count >= 2 ? attempts[String(parts[1])] ?? entry.reference : entry.reference
            let refund = entry.refundReference.flatMap { $0.split(separator: "/").last.map(String.init) }.flatMap { refunds[$0] }
            let effect = ProcessorEffect(entry)
            effects.append(ProcessorEffect(
                processorID: effect.processorID, reference: attempt, operation: effect.operation, refundReference: refund, amount: effect.amount,
                status: effect.status, declineCode: effect.declineCode, last4: effect.last4))
        }
        let repository = PaymentLedger(store: SQLitePaymentStore(database: try Database.openMigrated(path: databasePath, set: .main, clock: clock)))
        var ids: [String] = []
        try repository.forEachIntent(status: nil, limit: nil) { ids.append($0.id) }
        let machines = try ids.compactMap { try repository.loadMachine($0) }
        let broken = machines.flatMap { machine in PaymentInvariants.violations(of: machine).map { "\(machine.intent.id): \($0)" } }
        return broken + LedgerAgreement(machines: machines, effects: effects, settled: false).disagreements()
    }
}
