import Foundation
import PayPanel
import Synchronization
import TestSupport
import Testing

@Suite struct IdempotencyStoreTests {
    static let start = StorageFixtures.start
    static let parameters: JSONValue = ["amount": 1000, "currency": "USD"]

    func store() throws -> IdempotencyStore {
        IdempotencyStore(database: try Database.openMigrated(path: ":memory:", clock: ManualClock(Self.start)))
    }

    @Test func theFirstResultIsStoredAndReplayed() throws {
        let store = try store()
        var runs = 0
        let first = try store.perform(key: "key-1", scope: "payments.create", parameters: Self.parameters, at: Self.start) { _ in
            runs += 1
            return .succeeded(["id": "pi_1"])
        }
        let second = try store.perform(key: "key-1", scope: "payments.create", parameters: Self.parameters, at: Self.start.addingTimeInterval(60)) { _ in
            runs += 1
            return .succeeded(["id": "pi_2"])
        }
        #expect(runs == 1)
        #expect(!first.replayed && second.replayed)
        #expect(second.result == .succeeded(["id": "pi_1"]))
        #expect(second.firstUsedAt == Self.start)
    }

    @Test func failuresAreReplayedToo() throws {
        let store = try store()
        let declined = IdempotentResult.failed(code: "card_declined", message: "the card was declined (insufficient_funds)", body: ["status": "requires_payment_method"])
        _ = try store.perform(key: "k", scope: "payments.authorize", parameters: Self.parameters, at: Self.start) { _ in declined }
        let replay = try store.perform(key: "k", scope: "payments.authorize", parameters: Self.parameters, at: Self.start) { _ in .succeeded(nil) }
        #expect(replay.replayed && replay.result == declined)
    }

    @Test func theSameKeyWithOtherParametersIsRefused() throws {
        let store = try store()
        _ = try store.perform(key: "k", scope: "payments.create", parameters: Self.parameters, at: Self.start) { _ in .succeeded(nil) }
        var ran = false
        let error = try #require(throws: IdempotencyError.self) {
            try store.perform(key: "k", scope: "payments.create", parameters: ["amount": 2000, "currency": "USD"], at: Self.start) { _ in
                ran = true
                return .succeeded(nil)
            }
        }
        #expect(!ran)
        #expect(error.code == "idempotency_key_reused")
        #expect(error.message.contains("\"k\"") && error.message.contains("different parameters"))
    }

    @Test func keysAreScopedAndExpireAfter24Hours() throws {
        let store = try store()
        var runs = 0
        func call(_ scope: String, after seconds: TimeInterval) throws -> IdempotentResponse {
            try store.perform(key: "k", scope: scope, parameters: Self.parameters, at: Self.start.addingTimeInterval(seconds)) { _ in
                runs += 1
                return .succeeded(.number(runs))
            }
        }
        _ = try call("payments.create", after: 0)
        _ = try call("payments.refund", after: 0)
        #expect(runs == 2)
        #expect(try call("payments.create", after: 24 * 3600 - 0.001).replayed)
        let renewed = try call("payments.create", after: 24 * 3600)
        #expect(!renewed.replayed && runs == 3)
        // Expiry counts from the first use: the renewed key lives another 24 h.
        #expect(try call("payments.create", after: 47 * 3600).replayed)
    }

    @Test func anOperationThatThrowsStoresNothing() throws {
        let store = try store()
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try store.perform(key: "k", scope: "s", parameters: Self.parameters, at: Self.start) { _ in throw Boom() }
        }
        let retry = try store.perform(key: "k", scope: "s", parameters: Self.parameters, at: Self.start) { _ in .succeeded(true) }
        #expect(!retry.replayed)
    }

    @Test func aConcurrentDuplicateIsToldTheFirstIsInProgress() throws {
        let store = try store()
        guard case .claimed(let claim) = try store.reserve(key: "k", scope: "payments.refund", parameters: Self.parameters, at: Self.start) else {
            Issue.record("the first request did not claim the key")
            return
        }
        let error = try #require(throws: IdempotencyError.self) {
            try store.reserve(key: "k", scope: "payments.refund", parameters: Self.parameters, at: Self.start.addingTimeInterval(1))
        }
        #expect(error.code == "idempotency_in_progress")
        #expect(throws: IdempotencyError.self) {
            try store.perform(key: "k", scope: "payments.refund", parameters: Self.parameters, at: Self.start) { _ in .succeeded(nil) }
        }
        try store.complete(claim, with: .succeeded(["id": "re_1"]), at: Self.start.addingTimeInterval(2))
        let replay = try store.reserve(key: "k", scope: "payments.refund", parameters: Self.parameters, at: Self.start.addingTimeInterval(3))
        #expect(replay == .replay(IdempotentResponse(result: .succeeded(["id": "re_1"]), replayed: true, firstUsedAt: Self.start)))
    }

    @Test func aReleasedKeyCanBeUsedAgain() throws {
        let store = try store()
        guard case .claimed(let claim) = try store.reserve(key: "k", scope: "s", parameters: Self.parameters, at: Self.start) else { return }
        try store.release(claim)
        guard case .claimed = try store.reserve(key: "k", scope: "s", parameters: Self.parameters, at: Self.start) else {
            Issue.record("a released key stayed claimed")
            return
        }
    }

    @Test func aClaimLeftByACrashedRunIsTakenOverWithItsRecoveryPoint() throws {
        let store = try store()
        guard case .claimed(let claim) = try store.reserve(key: "k", scope: "s", parameters: Self.parameters, at: Self.start) else { return }
        try store.attach(resourceID: "att_123", to: claim)
        #expect(throws: IdempotencyError.self) {
            try store.reserve(key: "k", scope: "s", parameters: Self.parameters, at: Self.start.addingTimeInterval(store.inProgressLease - 1))
        }
        let later = try store.reserve(key: "k", scope: "s", parameters: Self.parameters, at: Self.start.addingTimeInterval(store.inProgressLease))
        guard case .claimed(let takeover) = later else {
            Issue.record("the stale claim was not taken over")
            return
        }
        #expect(takeover.isRecovery && takeover.recoveredResourceID == "att_123" && takeover.createdAt == Self.start)
    }

    @Test(arguments: ["", String(repeating: "k", count: 256), "line\nbreak", "4242424242424242"])
    func unusableKeysAreRefused(key: String) throws {
        let store = try store()
        let error = try #require(throws: IdempotencyError.self) {
            try store.perform(key: key, scope: "s", parameters: Self.parameters, at: Self.start) { _ in .succeeded(nil) }
        }
        #expect(error.code == "invalid_idempotency_key")
        #expect(!error.message.contains("4242424242424242"))
    }

    /// `run` works from an actor, across suspension points, the way CheckoutService uses it.
    actor Executor {
        let store: IdempotencyStore
        var runs = 0

        init(path: String) throws {
            store = IdempotencyStore(database: try Database.openMigrated(path: path, clock: ManualClock(IdempotencyStoreTests.start)))
        }

        func refund(key: String) async throws -> IdempotentResponse {
            try await store.run(key: key, scope: "payments.refund", parameters: IdempotencyStoreTests.parameters, clock: ManualClock(IdempotencyStoreTests.start)) { claim in
                if let claim { try store.attach(resourceID: "re_1", to: claim) }
                await Task.yield()
                runs += 1
                return .succeeded(["runs": .number(runs)])
            }
        }
    }

    @Test func runFromAnActorReplaysTheFirstResult() async throws {
        let directory = try TemporaryDirectory()
        let executor = try Executor(path: directory.file("idempotency.sqlite"))
        let first = try await executor.refund(key: "k")
        let second = try await executor.refund(key: "k")
        #expect(!first.replayed && second.replayed && second.result == first.result)
        #expect(await executor.runs == 1)
    }

    /// Duplicates from several connections at once: the body runs once, everyone gets its result.
    @Test func concurrentDuplicatesOnSeveralConnectionsRunOnce() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("payments.sqlite")
        _ = try Database.openMigrated(path: path, clock: ManualClock(Self.start))
        let responses = Concurrently.run(6) { _ -> String in
            do {
                let repository = PaymentLedger(store: SQLitePaymentStore(database: try Database(path: path)))
                let store = IdempotencyStore(database: repository.database)
                var random = SystemRandomNumberGenerator()
                let response = try store.perform(key: "shared", scope: "payments.create", parameters: Self.parameters, at: Self.start) { _ in
                    let request = try NewPaymentIntent(amount: PaymentFixture.amount)
                    return .succeeded(try repository.create(request, id: PaymentIDs.make(.intent, using: &random), at: Self.start).json)
                }
                guard case .succeeded(let body) = response.result else { return "failed" }
                return JSONWriter.string(body)
            } catch {
                return "error: \(error)"
            }
        }
        #expect(Set(responses).count == 1, "\(responses)")
        #expect(responses.first?.contains("pi_") == true)
        #expect(try StorageFixtures.count(try Database(path: path), "intents") == 1)
    }
}
