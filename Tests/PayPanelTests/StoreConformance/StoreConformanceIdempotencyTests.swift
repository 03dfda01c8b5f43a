import Foundation
import PayPanel
import TestSupport
import Testing

/// `IdempotencyStore`'s rules (Stripe's) over any store's rows: part of the conformance suite
/// (see `StoreKind`).
@Suite struct StoreConformanceIdempotencyTests {
    static let start = StorageFixtures.start
    static let parameters: JSONValue = ["amount": 1000, "currency": "USD"]

    @Test(arguments: StoreKind.allCases)
    func theFirstResultIsStoredAndReplayed(kind: StoreKind) throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let store = storeUnderTest.idempotency
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

    @Test(arguments: StoreKind.allCases)
    func failuresAreReplayedToo(kind: StoreKind) throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let store = storeUnderTest.idempotency
        let declined = IdempotentResult.failed(code: "card_declined", message: "the card was declined (insufficient_funds)", body: ["status": "requires_payment_method"])
        _ = try store.perform(key: "k", scope: "payments.authorize", parameters: Self.parameters, at: Self.start) { _ in declined }
        let replay = try store.perform(key: "k", scope: "payments.authorize", parameters: Self.parameters, at: Self.start) { _ in .succeeded(nil) }
        #expect(replay.replayed && replay.result == declined)
    }

    @Test(arguments: StoreKind.allCases)
    func theSameKeyWithOtherParametersIsRefused(kind: StoreKind) throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let store = storeUnderTest.idempotency
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

    @Test(arguments: StoreKind.allCases)
    func keysAreScopedAndExpireAfter24Hours(kind: StoreKind) throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let store = storeUnderTest.idempotency
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

    /// `purgeExpired` forgets exactly the keys first used 24 h or more ago.
    @Test(arguments: StoreKind.allCases)
    func purgeForgetsKeysAfter24Hours(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        let store = subject.idempotency
        _ = try store.perform(key: "old", scope: "s", parameters: Self.parameters, at: Self.start) { _ in .succeeded(nil) }
        _ = try store.perform(key: "new", scope: "s", parameters: Self.parameters, at: Self.start.addingTimeInterval(3600)) { _ in .succeeded(nil) }
        #expect(try store.purgeExpired(at: Self.start.addingTimeInterval(24 * 3600 - 0.001)) == 0)
        #expect(try store.purgeExpired(at: Self.start.addingTimeInterval(24 * 3600)) == 1)
        #expect(try subject.store.read { try $0.idempotencyRecord(key: "old", scope: "s") } == nil)
        #expect(try subject.store.read { try $0.idempotencyRecord(key: "new", scope: "s") }?.state == .completed)
        #expect(try store.purgeExpired(at: Self.start.addingTimeInterval(24 * 3600)) == 0)
        #expect(try store.purgeExpired(at: Self.start.addingTimeInterval(25 * 3600)) == 1)
        #expect(try subject.store.read { try $0.idempotencyRecord(key: "new", scope: "s") } == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func anOperationThatThrowsStoresNothing(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        let store = subject.idempotency
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try store.perform(key: "k", scope: "s", parameters: Self.parameters, at: Self.start) { transaction in
                _ = try subject.ledger.create(try NewPaymentIntent(amount: PaymentFixture.amount), id: "pi_boom", at: Self.start, in: transaction)
                throw Boom()
            }
        }
        #expect(try subject.ledger.intent("pi_boom") == nil)
        let retry = try store.perform(key: "k", scope: "s", parameters: Self.parameters, at: Self.start) { _ in .succeeded(true) }
        #expect(!retry.replayed)
    }

    @Test(arguments: StoreKind.allCases)
    func aConcurrentDuplicateIsToldTheFirstIsInProgress(kind: StoreKind) throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let store = storeUnderTest.idempotency
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

    @Test(arguments: StoreKind.allCases)
    func aClaimGivenUpWithNothingAttachedIsReleased(kind: StoreKind) throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let store = storeUnderTest.idempotency
        guard case .claimed(let claim) = try store.reserve(key: "k", scope: "s", parameters: Self.parameters, at: Self.start) else { return }
        #expect(try store.giveUp(claim) == .released)
        guard case .claimed(let again) = try store.reserve(key: "k", scope: "s", parameters: Self.parameters, at: Self.start) else {
            Issue.record("a released key stayed claimed")
            return
        }
        #expect(!again.isRecovery && again.recoveredResourceID == nil, "nothing was started: the retry runs for real")
    }

    @Test(arguments: StoreKind.allCases)
    func aClaimGivenUpWithAResourceIsKeptAndTakenOverAtOnce(kind: StoreKind) throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let store = storeUnderTest.idempotency
        guard case .claimed(let claim) = try store.reserve(key: "k", scope: "s", parameters: Self.parameters, at: Self.start) else { return }
        try store.attach(resourceID: "re_1", to: claim)
        #expect(try store.giveUp(claim) == .keptForResumption(resourceID: "re_1"))
        // One second later, well within the lease: nobody holds it, so the retry takes it over.
        let retry = try store.reserve(key: "k", scope: "s", parameters: Self.parameters, at: Self.start.addingTimeInterval(1))
        guard case .claimed(let takeover) = retry else {
            Issue.record("a claim with a resource was deleted or replayed: \(retry)")
            return
        }
        #expect(takeover.isRecovery && takeover.recoveredResourceID == "re_1" && takeover.createdAt == Self.start)
        // The takeover holds it now, under a fresh lease: a duplicate is told it is in progress.
        let duplicate = try #require(throws: IdempotencyError.self) {
            try store.reserve(key: "k", scope: "s", parameters: Self.parameters, at: Self.start.addingTimeInterval(2))
        }
        #expect(duplicate.code == "idempotency_in_progress")
        #expect(duplicate.message.contains("in progress since \(Timestamp.format(Self.start.addingTimeInterval(1)))"), "\(duplicate.message)")
        try store.complete(takeover, with: .succeeded(["id": "re_1"]), at: Self.start.addingTimeInterval(3))
        #expect(try store.reserve(key: "k", scope: "s", parameters: Self.parameters, at: Self.start.addingTimeInterval(4))
            == .replay(IdempotentResponse(result: .succeeded(["id": "re_1"]), replayed: true, firstUsedAt: Self.start)))
    }

    /// A run that outlived its lease must not give up (delete, or open) the claim of the run
    /// that took the key over meanwhile.
    @Test(arguments: StoreKind.allCases, [nil, "att_1"])
    func aRunGivesUpOnlyItsOwnClaim(kind: StoreKind, attached: String?) throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let store = storeUnderTest.idempotency
        guard case .claimed(let slow) = try store.reserve(key: "k", scope: "s", parameters: Self.parameters, at: Self.start) else { return }
        if let attached { try store.attach(resourceID: attached, to: slow) }
        let afterLease = Self.start.addingTimeInterval(store.inProgressLease)
        guard case .claimed(let takeover) = try store.reserve(key: "k", scope: "s", parameters: Self.parameters, at: afterLease) else {
            Issue.record("the stale claim was not taken over")
            return
        }
        #expect(takeover.isRecovery && takeover.recoveredResourceID == attached)
        #expect(try store.giveUp(slow) == .notHeld)
        #expect(throws: IdempotencyError.self, "the takeover still holds the key") {
            try store.reserve(key: "k", scope: "s", parameters: Self.parameters, at: afterLease.addingTimeInterval(1))
        }
    }

    /// `run`: a body that throws before attaching anything releases the key; one that throws
    /// after attaching keeps it, and the next run resumes what was attached. Either way the
    /// body's own error comes out.
    @Test(arguments: StoreKind.allCases)
    func runGivesUpByTheOneRule(kind: StoreKind) async throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let store = storeUnderTest.idempotency
        let clock = ManualClock(Self.start)
        struct Refused: Error, Equatable {}
        await #expect(throws: Refused.self) {
            try await store.run(key: "early", scope: "s", parameters: Self.parameters, clock: clock) { _ in throw Refused() }
        }
        await #expect(throws: Refused.self) {
            try await store.run(key: "late", scope: "s", parameters: Self.parameters, clock: clock) { claim in
                try store.attach(resourceID: "re_9", to: try #require(claim))
                throw Refused()
            }
        }
        var seen: [String: IdempotencyClaim] = [:]
        for key in ["early", "late"] {
            _ = try await store.run(key: key, scope: "s", parameters: Self.parameters, clock: clock) { claim in
                seen[key] = claim
                return .succeeded(nil)
            }
        }
        #expect(seen["early"]?.isRecovery == false && seen["early"]?.recoveredResourceID == nil)
        #expect(seen["late"]?.isRecovery == true && seen["late"]?.recoveredResourceID == "re_9")
    }

    /// When the write that gives the claim up fails too, `run` says so (it does not swallow it)
    /// and the claim stays in progress, protecting what was started: another process (which
    /// cannot know the run stopped) sees it held until its lease ends. The store that owes the
    /// give-up writes it before its next reservation once writes work again, so the retry
    /// takes the key over at once instead of waiting out the lease; while writes still fail it
    /// stays owed.
    @Test(arguments: StoreKind.allCases)
    func aClaimThatCannotBeGivenUpIsReportedAndGivenUpOnceWritesWorkAgain(kind: StoreKind) async throws {
        let subject = try kind.makeStore()
        let failing = WriteFailingStore(subject.store)
        let store = IdempotencyStore(store: failing)
        let anotherProcess = IdempotencyStore(store: subject.store)
        let clock = ManualClock(Self.start)
        struct AnswerNotRecorded: Error {}
        let error = await #expect(throws: IdempotencyClaimNotGivenUp.self) {
            try await store.run(key: "k", scope: "payments.refund", parameters: Self.parameters, clock: clock) { claim in
                try store.attach(resourceID: "re_1", to: try #require(claim))
                failing.failNextWrites(1)  // the give-up write
                throw AnswerNotRecorded()
            }
        }
        #expect(error?.failure is AnswerNotRecorded && error?.giveUpFailure is InjectedWriteFailure)
        #expect(error?.message.contains("idempotency key \"k\" could not be given up yet") == true, "\(String(describing: error?.message))")
        #expect(failing.refusedWrites == 1)
        let row = try #require(try subject.store.read { try $0.idempotencyRecord(key: "k", scope: "payments.refund") })
        #expect(row.state == .inProgress && row.lockedAt == Self.start && row.resourceID == "re_1")
        #expect(throws: IdempotencyError.self, "within the lease the key is held for a process that cannot know the run stopped") {
            try anotherProcess.reserve(key: "k", scope: "payments.refund", parameters: Self.parameters, at: Self.start.addingTimeInterval(60))
        }

        // Writes still fail: the owed give-up fails again (silently: the reservation's own
        // write says why) and stays owed.
        failing.failNextWrites(2)
        #expect(throws: InjectedWriteFailure.self) {
            try store.reserve(key: "other", scope: "payments.refund", parameters: Self.parameters, at: Self.start.addingTimeInterval(61))
        }
        #expect(failing.refusedWrites == 3)
        #expect(try subject.store.read { try $0.idempotencyRecord(key: "k", scope: "payments.refund") }?.lockedAt == Self.start)

        // Writes work again: the next reservation, on any key, first gives the claim up.
        _ = try store.reserve(key: "other", scope: "payments.refund", parameters: Self.parameters, at: Self.start.addingTimeInterval(62))
        let later = try anotherProcess.reserve(key: "k", scope: "payments.refund", parameters: Self.parameters, at: Self.start.addingTimeInterval(63))
        guard case .claimed(let takeover) = later else {
            Issue.record("the claim was not given up once writes worked again: \(later)")
            return
        }
        #expect(takeover.isRecovery && takeover.recoveredResourceID == "re_1")
    }

    @Test(arguments: StoreKind.allCases)
    func aClaimLeftByACrashedRunIsTakenOverWithItsRecoveryPoint(kind: StoreKind) throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let store = storeUnderTest.idempotency
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
        // The takeover renewed the lease: a third run is told it is in progress.
        #expect(throws: IdempotencyError.self) {
            try store.reserve(key: "k", scope: "s", parameters: Self.parameters, at: Self.start.addingTimeInterval(store.inProgressLease + 1))
        }
    }

    @Test(arguments: StoreKind.allCases, ["", String(repeating: "k", count: 256), "line\nbreak", "c1\u{85}control", "4242424242424242\u{7F}"])
    func unusableKeysAreRefused(kind: StoreKind, key: String) throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let store = storeUnderTest.idempotency
        let error = try #require(throws: IdempotencyError.self) {
            try store.perform(key: key, scope: "s", parameters: Self.parameters, at: Self.start) { _ in .succeeded(nil) }
        }
        #expect(error.code == "invalid_idempotency_key")
        #expect(!error.message.contains("4242424242424242"))
    }

    /// Any 1 to 255 printable characters are a key, whatever their digits: a UUID whose last
    /// group is all digits, a nanosecond timestamp, a card number (kept as its digest), a key
    /// that looks like such a digest, 255 non-ASCII characters. Each is stored, replayed, and
    /// never confused with another.
    @Test(arguments: StoreKind.allCases, [
        "3f2a9c1e-8b7d-4e2f-a1b2-123456789012", "order-1234567890123", "1732000000123456780", "4242424242424242",
        "4242 4242 4242 4242", "sha256:" + String(repeating: "0", count: 64), String(repeating: "é", count: 255), "clé 🔑",
    ])
    func keysWithAnyPrintableCharactersAreStoredAndReplayed(kind: StoreKind, key: String) throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let store = storeUnderTest.idempotency
        var runs = 0
        func perform(_ key: String, _ id: String) throws -> IdempotentResponse {
            try store.perform(key: key, scope: "payments.create", parameters: Self.parameters, at: Self.start) { _ in
                runs += 1
                return .succeeded(["id": .string(id)])
            }
        }
        let first = try perform(key, "pi_1")
        let retry = try perform(key, "pi_2")
        #expect(!first.replayed && retry.replayed && retry.result == .succeeded(["id": "pi_1"]))
        // What a key holding a card number is stored as, sent as a key of its own, is another key.
        let digestLookalike = try perform("sha256:" + SHA256.hash(key).hexString, "pi_3")
        #expect(!digestLookalike.replayed)
        #expect(runs == 2)
    }

    /// `run` works from an actor, across suspension points, the way PaymentService uses it.
    actor Executor {
        let subject: StoreUnderTest
        var runs = 0

        init(kind: StoreKind) throws {
            subject = try kind.makeStore()
        }

        func refund(key: String) async throws -> IdempotentResponse {
            let store = subject.idempotency
            return try await store.run(key: key, scope: "payments.refund", parameters: StoreConformanceIdempotencyTests.parameters, clock: ManualClock(StoreConformanceIdempotencyTests.start)) { claim in
                if let claim { try store.attach(resourceID: "re_1", to: claim) }
                await Task.yield()
                runs += 1
                return .succeeded(["runs": .number(runs)])
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func runFromAnActorReplaysTheFirstResult(kind: StoreKind) async throws {
        let executor = try Executor(kind: kind)
        let first = try await executor.refund(key: "k")
        let second = try await executor.refund(key: "k")
        #expect(!first.replayed && second.replayed && second.result == first.result)
        #expect(await executor.runs == 1)
    }
}
