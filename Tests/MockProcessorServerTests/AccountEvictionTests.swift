import Foundation
import MockProcessor
@testable import MockProcessorServer
import PayPanel
import PayPanelHTTP
import Testing
import TestSupport

/// A suite that makes a key per test never hits a wall: beyond the resident bound the least
/// recently used idle account is written and dropped from memory, and comes back whole —
/// objects, idempotent replays, test clock — when its key returns; a reset frees its slot at
/// once; a restart on the same ledger has every account.
@Suite struct AccountEvictionTests {
    static func start(_ ledger: String, clock: ManualClock, resident: Int) async throws -> ProcessorServer {
        let processor = try MockProcessor(ledgerPath: ledger, clock: clock)
        var options = ProcessorServer.Options()
        options.residentAccounts = resident
        return try await ProcessorServer.start(
            processor: processor, clock: clock, configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0), options: options)
    }

    @Test func keysBeyondTheBoundEvictTheLeastRecentlyUsedAndEveryAccountComesBackWhole() async throws {
        let directory = try TemporaryDirectory("procserve-evict")
        let clock = ManualClock(try Timestamp.parse("2026-12-01T10:00:00Z"))
        let ledger = directory.file("processor.sqlite")
        let server = try await Self.start(ledger, clock: clock, resident: 3)
        let first = StripeTestClient(port: server.port, key: "sk_test_evict_0")
        #expect(try await first.call("POST", "/_mock/clock/advance", [("seconds", "86400")]).status == 200)

        var made: [String: String] = [:]
        for index in 0..<12 {
            let key = "sk_test_evict_\(index)"
            let paid = try #require(try await StripeTestClient(port: server.port, key: key).pay(1000, idempotencyKey: "order-\(index)").reply)
            #expect(paid.status == 200, "\(key): \(paid.text)")
            made[key] = paid.id
            #expect(await server.service.residentCount <= 3, "the bound holds after \(key)")
        }
        // Evicted, its test clock still runs for the webhook sender (retries are due on it).
        let firstTag = Account.tag(forKey: "sk_test_evict_0")
        #expect(await server.service.residentCount == 3)
        #expect(await server.service.now(firstTag) == clock.now().addingTimeInterval(86_400))
        // The first key's account was evicted long ago: its objects, its replay and its clock come back.
        let back = try await first.call("GET", "/v1/payment_intents/\(made["sk_test_evict_0"]!)")
        #expect(back.status == 200 && back["amount"]?.int64Value == 1000, "\(back.text)")
        let replay = try #require(try await first.pay(1000, idempotencyKey: "order-0").reply)
        #expect(replay.headers["Idempotent-Replayed"] == "true" && replay.id == made["sk_test_evict_0"])
        let later = try await first.call("POST", "/v1/payment_intents", [("amount", "500"), ("currency", "usd")])
        let created = later["created"]?.int64Value ?? 0
        #expect(created >= Int64(clock.now().timeIntervalSince1970) + 86_400, "the test clock's advance survived eviction")
        #expect(await server.service.residentCount <= 3)

        // A reset frees its slot at once.
        let resident = await server.service.residentCount
        #expect(try await first.call("POST", "/_mock/reset").status == 200)
        #expect(await server.service.residentCount == resident - 1)
        #expect(try await first.call("GET", "/v1/payment_intents/\(made["sk_test_evict_0"]!)").status == 404, "reset is reset, not evicted")
        await server.shutdown(grace: .seconds(5))

        // A restart on the same ledger has every account (beyond the bound, read on demand).
        let again = try await Self.start(ledger, clock: clock, resident: 3)
        for index in 1..<12 {
            let key = "sk_test_evict_\(index)"
            let found = try await StripeTestClient(port: again.port, key: key).call("GET", "/v1/payment_intents/\(made[key]!)")
            #expect(found.status == 200, "\(key) after the restart: \(found.text)")
        }
        #expect(await again.service.residentCount <= 3)
        await again.shutdown(grace: .seconds(5))
    }

    @Test func anInMemoryLedgerHasNowhereToEvictToSoItsBoundIsA429() async throws {
        let clock = ManualClock(try Timestamp.parse("2026-12-01T10:00:00Z"))
        let server = try await Self.start(":memory:", clock: clock, resident: 2)
        for index in 0..<2 {
            #expect(try await StripeTestClient(port: server.port, key: "sk_test_mem_\(index)").call("GET", "/v1/payment_intents").status == 200)
        }
        let refused = try await StripeTestClient(port: server.port, key: "sk_test_mem_2").call("GET", "/v1/payment_intents")
        #expect(refused.status == 429 && refused.error?["code"]?.stringValue == "account_limit", "\(refused.text)")
        await server.shutdown(grace: .seconds(5))
    }
}
