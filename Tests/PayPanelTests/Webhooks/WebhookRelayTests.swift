import Foundation
import PayPanel
import TestSupport
import Testing

/// The relay in virtual time: signed deliveries, every retry outcome over the ~3-day schedule,
/// Retry-After, 410 disabling, a crash between send and record, rotation, refused destinations,
/// replays, checkout events from the trigger, and secrets never stored in clear. Each test runs
/// on every `StoreKind` that holds several stores on one database (a SQLite file, PostgreSQL):
/// the `WebhookStore` conformance suite.
@Suite struct WebhookRelayTests {
    @Test(arguments: StoreKind.shared)
    func aDeliveryIsSignedWithTheEventIDAndVerifiesWithTheEndpointSecret(kind: StoreKind) async throws {
        let harness = try RelayHarness(kind: kind)
        let created = try harness.endpoints.create(url: "https://merchant.example/hooks", eventTypes: ["*"], at: harness.clock.now())
        let intent = try harness.createIntent()
        let report = try await harness.relay.runPass()
        #expect(report.published == 1 && report.delivered == 1)
        let sent = try #require(harness.transport.sent.first)
        let event = try #require(try harness.webhookStore.events(type: nil, page: .first, limit: 10).first)
        #expect(sent.url == "https://merchant.example/hooks")
        #expect(sent.headers["webhook-id"] == event.id && event.id.hasPrefix("evt_"))
        #expect(sent.headers["webhook-timestamp"] == String(Int(RelayHarness.start.timeIntervalSince1970)))
        #expect(sent.headers["content-type"] == "application/json")
        _ = try StandardWebhookSignature.verify(
            id: sent.headers["webhook-id"], timestamp: sent.headers["webhook-timestamp"], signatures: sent.headers["webhook-signature"],
            body: sent.body, secret: created.secret, now: harness.clock.now())
        let body = try JSONParser().parse(sent.body)
        #expect(body["object"] == "event" && body["type"] == "payment_intent.created" && body["data"]?["object"]?["id"]?.stringValue == intent.id)
        #expect(String(decoding: sent.body, as: UTF8.self) == event.body)
        let delivery = try harness.onlyDelivery(of: event.id)
        #expect(delivery.status == .delivered && delivery.attempts == 1 && delivery.lastResponseCode == 200)
        // Nothing is due any more.
        #expect(try await harness.relay.runPass().isEmpty)
        #expect(harness.transport.sent.count == 1)
    }

    @Test(arguments: StoreKind.shared)
    func failuresRetryOnTheScheduleForAboutThreeDaysThenFailAndCanBeReplayed(kind: StoreKind) async throws {
        let harness = try RelayHarness(kind: kind)
        let endpoint = try harness.endpoints.create(url: "https://merchant.example/hooks", eventTypes: ["*"], at: harness.clock.now()).record
        try harness.createIntent()
        // 500, a timeout, 404, a 3xx, and so on: everything but 2xx and 410 is retried.
        let failures: [WebhookTransportResult] = [
            .response(status: 500, retryAfter: nil), .failed("timed out"), .response(status: 404, retryAfter: nil),
            .response(status: 302, retryAfter: nil), .failed("connection refused"), .response(status: 502, retryAfter: nil),
            .response(status: 500, retryAfter: nil), .response(status: 400, retryAfter: nil), .response(status: 504, retryAfter: nil),
            .response(status: 500, retryAfter: nil),
        ]
        harness.transport.answer(failures[0])
        try await harness.relay.runPass()
        let eventID = try #require(harness.transport.sent.first?.headers["webhook-id"])
        var totalWait: TimeInterval = 0
        for (index, failure) in failures.enumerated().dropFirst() {
            let delivery = try harness.onlyDelivery(of: eventID)
            #expect(delivery.status == .pending && delivery.attempts == index)
            let wait = try #require(delivery.nextAttemptAt).timeIntervalSince(harness.clock.now())
            let planned = WebhookRetrySchedule.standard.delays[index - 1]
            #expect(abs(wait - planned) <= planned * 0.1 + 0.001, "attempt \(index + 1) waits \(wait) s, planned \(planned) s")
            // Just before it is due, nothing is sent.
            harness.advance(by: wait - 0.5)
            try await harness.relay.runPass()
            #expect(harness.transport.sent.count == index)
            harness.advance(by: 0.5)
            harness.transport.answer(failure)
            try await harness.relay.runPass()
            #expect(harness.transport.sent.count == index + 1)
            totalWait += wait
        }
        let failed = try harness.onlyDelivery(of: eventID)
        #expect(failed.status == .failed && failed.attempts == 10)
        #expect(totalWait > 60 * 3600 && totalWait < 90 * 3600, "the schedule spanned \(totalWait / 3600) h")
        #expect(Set(harness.transport.sent.map { $0.headers["webhook-id"] }) == [eventID])
        let attempts = try harness.webhookStore.attempts(ofDelivery: failed.id)
        #expect(attempts.map(\.attempt) == Array(1...10))
        #expect(attempts.last?.outcome == .failed && attempts.dropLast().allSatisfy { $0.outcome == .retry })
        #expect(attempts[1].error == "timed out" && attempts[1].responseCode == nil && attempts[0].responseCode == 500)

        // Replay: due now, a fresh schedule, the same webhook-id.
        harness.advance(by: 3600)
        #expect(try harness.endpoints.replay(eventID: eventID, endpointID: nil, at: harness.clock.now()) == [endpoint.id])
        try await harness.relay.runPass()
        #expect(harness.transport.sent.count == 11 && harness.transport.sent.last?.headers["webhook-id"] == eventID)
        #expect(try harness.onlyDelivery(of: eventID).status == .delivered)
    }

    @Test(arguments: StoreKind.shared)
    func tooManyRequestsAndUnavailableHonourRetryAfter(kind: StoreKind) async throws {
        let harness = try RelayHarness(kind: kind)
        _ = try harness.endpoints.create(url: "https://merchant.example/hooks", eventTypes: ["*"], at: harness.clock.now())
        try harness.createIntent()
        harness.transport.answer(.response(status: 429, retryAfter: 3600))
        try await harness.relay.runPass()
        let eventID = try #require(harness.transport.sent.first?.headers["webhook-id"])
        #expect(try #require(try harness.onlyDelivery(of: eventID).nextAttemptAt) == harness.clock.now().addingTimeInterval(3600))
        harness.advance(by: 3600)
        harness.transport.answer(.response(status: 503, retryAfter: 600))
        try await harness.relay.runPass()
        #expect(try #require(try harness.onlyDelivery(of: eventID).nextAttemptAt) == harness.clock.now().addingTimeInterval(600))
        // A 500's Retry-After is not a throttle: the schedule decides (5 min ±10 % for the third try).
        harness.advance(by: 600)
        harness.transport.answer(.response(status: 500, retryAfter: 5))
        try await harness.relay.runPass()
        let wait = try #require(try harness.onlyDelivery(of: eventID).nextAttemptAt).timeIntervalSince(harness.clock.now())
        #expect(wait >= 1800 * 0.9 && wait <= 1800 * 1.1)
    }

    @Test(arguments: StoreKind.shared)
    func goneDisablesTheEndpointAndNothingMoreIsSentToIt(kind: StoreKind) async throws {
        let harness = try RelayHarness(kind: kind)
        let gone = try harness.endpoints.create(url: "https://gone.example/hooks", eventTypes: ["*"], at: harness.clock.now()).record
        let other = try harness.endpoints.create(url: "https://other.example/hooks", eventTypes: ["*"], at: harness.clock.now()).record
        harness.transport.always(.response(status: 410, retryAfter: nil), for: gone.url)
        try harness.createIntent()
        let report = try await harness.relay.runPass()
        #expect(report.disabled == 1 && report.delivered == 1)
        #expect(try harness.endpoints.endpoint(gone.id).status == .disabled)
        #expect(try harness.endpoints.endpoint(gone.id).disabledReason?.contains("410") == true)
        #expect(try harness.endpoints.endpoint(other.id).status == .enabled)
        try harness.createIntent()
        try await harness.relay.runPass()
        #expect(harness.transport.sent.filter { $0.url.contains("gone") }.count == 1)
        #expect(harness.transport.sent.filter { $0.url.contains("other") }.count == 2)
    }

    @Test(arguments: StoreKind.shared)
    func aCrashBetweenSendingAndRecordingSendsAgainWithTheSameWebhookID(kind: StoreKind) async throws {
        let harness = try RelayHarness(kind: kind, afterSend: { _ in throw SimulatedCrash() })
        _ = try harness.endpoints.create(url: "https://merchant.example/hooks", eventTypes: ["*"], at: harness.clock.now())
        try harness.createIntent()
        await #expect(throws: SimulatedCrash.self) { try await harness.relay.runPass() }
        #expect(harness.transport.sent.count == 1)
        let eventID = try #require(harness.transport.sent.first?.headers["webhook-id"])
        let leased = try harness.onlyDelivery(of: eventID)
        #expect(leased.status == .pending && leased.attempts == 0)

        // The restarted process: a new relay on the same database and transport.
        let restarted = try RelayHarness.makeRelay(database: harness.database, clock: harness.clock, transport: harness.transport, allowPrivate: true)
        try await restarted.runPass()
        #expect(harness.transport.sent.count == 1, "the lease still holds")
        harness.advance(by: WebhookRelay.lease)
        try await restarted.runPass()
        #expect(harness.transport.sent.count == 2)
        #expect(harness.transport.sent.map { $0.headers["webhook-id"] } == [eventID, eventID])
        #expect(harness.transport.sent[0].body == harness.transport.sent[1].body)
        #expect(try harness.onlyDelivery(of: eventID).status == .delivered)
    }

    @Test(arguments: StoreKind.shared)
    func duringARotationBothSecretsSignForADay(kind: StoreKind) async throws {
        let harness = try RelayHarness(kind: kind)
        let original = try harness.endpoints.create(url: "https://merchant.example/hooks", eventTypes: ["*"], at: harness.clock.now())
        let rotated = try harness.endpoints.rotateSecret(original.record.id, at: harness.clock.now())
        #expect(rotated.secret != original.secret && rotated.record.secretVersion == 2)
        try harness.createIntent()
        try await harness.relay.runPass()
        let sent = try #require(harness.transport.sent.last)
        #expect(sent.headers["webhook-signature"]?.split(separator: " ").count == 2)
        for secret in [original.secret, rotated.secret] {
            _ = try StandardWebhookSignature.verify(
                id: sent.headers["webhook-id"], timestamp: sent.headers["webhook-timestamp"], signatures: sent.headers["webhook-signature"],
                body: sent.body, secret: secret, now: harness.clock.now())
        }
        harness.advance(by: WebhookEndpoints.rotationOverlap)
        try harness.createIntent()
        try await harness.relay.runPass()
        let later = try #require(harness.transport.sent.last)
        #expect(later.headers["webhook-signature"]?.split(separator: " ").count == 1)
        #expect(throws: WebhookSignatureError.self) {
            try StandardWebhookSignature.verify(
                id: later.headers["webhook-id"], timestamp: later.headers["webhook-timestamp"], signatures: later.headers["webhook-signature"],
                body: later.body, secret: original.secret, now: harness.clock.now())
        }
    }

    @Test(arguments: StoreKind.shared)
    func refusedDestinationsAreNeverContactedAndTheAttemptSaysWhy(kind: StoreKind) async throws {
        let harness = try RelayHarness(kind: kind, allowPrivate: false)
        _ = try harness.endpoints.create(url: "https://169.254.169.254/latest/meta-data", eventTypes: ["*"], at: harness.clock.now())
        _ = try harness.endpoints.create(url: "http://merchant.example/hooks", eventTypes: ["*"], at: harness.clock.now())
        try harness.createIntent()
        let report = try await harness.relay.runPass()
        #expect(report.retrying == 2)
        #expect(harness.transport.sent.isEmpty)
        let event = try #require(try harness.webhookStore.events(type: nil, page: .first, limit: 1).first)
        let errors = try harness.webhookStore.deliveries(ofEvent: event.id).compactMap(\.lastError)
        #expect(errors.count == 2 && errors.allSatisfy { $0.hasPrefix("destination refused") })
    }

    @Test(arguments: StoreKind.shared)
    func endpointsGetOnlyTheTypesTheyAskForAndBadInputIsRefused(kind: StoreKind) async throws {
        let harness = try RelayHarness(kind: kind)
        _ = try harness.endpoints.create(url: "https://merchant.example/paid", eventTypes: ["payment_intent.succeeded"], at: harness.clock.now())
        try harness.createIntent()
        let report = try await harness.relay.runPass()
        #expect(report.published == 1 && harness.transport.sent.isEmpty)
        for (url, types) in [("ftp://merchant.example/", ["*"]), ("https://user:pw@merchant.example/", ["*"]), ("https://merchant.example/", ["payment.nope"]),
                             ("merchant.example", ["*"])] {
            #expect(throws: WebhookStoreError.self) { try harness.endpoints.create(url: url, eventTypes: types, at: harness.clock.now()) }
        }
    }

    @Test(arguments: StoreKind.shared)
    func checkoutEndingsBecomeEventsThroughTheTrigger(kind: StoreKind) async throws {
        let harness = try RelayHarness(kind: kind)
        let store = try harness.database.factory.openPaymentStore()
        var checkout = Checkout(
            id: "co_AAAAAAAAAAAAAAAAAAAAAAAA", status: .open, panel: PanelConfig.seed, captureMethod: .manual, paymentIntentID: nil,
            clientSecretHash: SHA256.hash("secret"), createdAt: RelayHarness.start, updatedAt: RelayHarness.start, version: 1)
        try store.insertCheckout(checkout)
        checkout.panel.amountOptions = [100, 200]
        checkout.version = 2
        #expect(try store.updateCheckout(checkout, previousVersion: 1))  // not an ending: no event
        checkout.status = .expired
        checkout.version = 3
        #expect(try store.updateCheckout(checkout, previousVersion: 2))
        try await harness.relay.runPass()
        let events = try harness.webhookStore.events(type: "checkout.expired", page: .first, limit: 10)
        #expect(events.count == 1)
        let object = try JSONParser().parse(try #require(events.first).body)["data"]?["object"]
        #expect(object?["object"] == "checkout" && object?["status"] == "expired" && object?["amount_options"] == [100, 200])
        #expect(object?["client_secret"] == nil)
    }

    @Test(arguments: StoreKind.shared)
    func eventsPageNewestFirstWithCursorsAndATypeFilter(kind: StoreKind) async throws {
        let harness = try RelayHarness(kind: kind)
        for _ in 0..<5 {
            try harness.createIntent()
            harness.advance(by: 1)
        }
        try await harness.relay.runPass()
        let all = try harness.webhookStore.events(type: nil, page: .first, limit: 10)
        #expect(all.count == 5 && all.map(\.createdAt) == all.map(\.createdAt).sorted(by: >))
        let second = try harness.webhookStore.events(type: nil, page: .olderThan(all[1].id), limit: 2)
        #expect(second.map(\.id) == [all[2].id, all[3].id])
        let before = try harness.webhookStore.events(type: nil, page: .newerThan(all[3].id), limit: 2)
        #expect(before.map(\.id) == [all[1].id, all[2].id])
        #expect(try harness.webhookStore.events(type: "payment_intent.succeeded", page: .first, limit: 10).isEmpty)
    }

    /// Two relays on one database (two servers), passing at once again and again while the
    /// events are published: every message becomes one event, and each event reaches each
    /// endpoint once, whichever relay published or claimed it.
    @Test(arguments: StoreKind.shared)
    func twoRelaysOnOneDatabaseSendEachDeliveryExactlyOnce(kind: StoreKind) async throws {
        let harness = try RelayHarness(kind: kind)
        let urls = ["https://one.example/hooks", "https://two.example/hooks"]
        for url in urls { _ = try harness.endpoints.create(url: url, eventTypes: ["*"], at: harness.clock.now()) }
        let other = try RelayHarness.makeRelay(database: harness.database, clock: harness.clock, transport: harness.transport, allowPrivate: true, seed: 99)
        for _ in 0..<12 { try harness.createIntent() }
        for _ in 0..<4 {
            async let a = harness.relay.runPass()
            async let b = other.runPass()
            _ = try await (a, b)
        }
        let events = try harness.webhookStore.events(type: nil, page: .first, limit: 100)
        #expect(events.count == 12)
        let sent = harness.transport.sent
        #expect(sent.count == 12 * urls.count, "\(sent.count) posts for \(12 * urls.count) deliveries")
        for url in urls {
            let ids = sent.filter { $0.url == url }.compactMap { $0.headers["webhook-id"] }
            #expect(Set(ids) == Set(events.map(\.id)) && ids.count == events.count, "\(url)")
        }
        for event in events {
            let deliveries = try harness.webhookStore.deliveries(ofEvent: event.id)
            #expect(deliveries.count == 2 && deliveries.allSatisfy { $0.status == .delivered && $0.attempts == 1 })
        }
    }

    /// SQLite's file is scanned byte by byte; PostgreSQL's rows are read back through the store.
    @Test func theDatabaseHoldsNoSecretInClear() async throws {
        let harness = try RelayHarness(kind: .sqliteFile)
        let directory = try #require(harness.database.directory)
        let created = try harness.endpoints.create(url: "https://merchant.example/hooks", eventTypes: ["*"], at: harness.clock.now())
        let rotated = try harness.endpoints.rotateSecret(created.record.id, at: harness.clock.now())
        try harness.createIntent()
        try await harness.relay.runPass()
        var bytes: [UInt8] = []
        for suffix in ["", "-wal"] {
            if let data = FileManager.default.contents(atPath: directory.file("payments.sqlite") + suffix) { bytes += Array(data) }
        }
        #expect(!bytes.isEmpty)
        for secret in [created.secret, rotated.secret] {
            #expect(bytes.firstRange(of: secret.bytes) == nil)
            #expect(bytes.firstRange(of: Array(secret.revealed.utf8)) == nil)
            #expect(bytes.firstRange(of: Array(secret.revealed.dropFirst(6).utf8)) == nil)
        }
        // Another key file does not open them.
        let stranger = WebhookEndpoints(store: harness.webhookStore, box: try WebhookSecretBox(masterKey: [UInt8](repeating: 1, count: 32)))
        let record = try stranger.endpoint(created.record.id)
        #expect(throws: (any Error).self) {
            try WebhookSecretBox(masterKey: [UInt8](repeating: 1, count: 32)).open(record.sealedSecret, endpointID: record.id, version: record.secretVersion)
        }
    }
}
