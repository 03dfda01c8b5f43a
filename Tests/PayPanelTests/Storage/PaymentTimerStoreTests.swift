import Foundation
import PayPanel
import TestSupport
import Testing

/// Timers, reconciliation work, the token replay guard, the inbox and the outbox.
@Suite struct PaymentTimerStoreTests {
    @Test func abandonmentTimerCancelsAnUnpaidIntentOnce() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 20)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        let later = StorageFixtures.start.addingTimeInterval(24 * 3600)
        #expect(try repository.dueTimers(at: later.addingTimeInterval(-1)).isEmpty)
        let timer = try #require(try repository.dueTimers(at: later).first)
        guard case .applied(let transition) = try repository.fireTimer(timer, at: later) else {
            Issue.record("the abandonment timer was not applied")
            return
        }
        #expect(transition.intent.status == .canceled && transition.intent.cancellationReason == .abandoned)
        guard case .alreadyHandled = try repository.fireTimer(timer, at: later) else {
            Issue.record("a fired timer fired again")
            return
        }
        #expect(try repository.intent(intent.id)?.version == 2)
    }

    @Test func aTimerThatNoLongerAppliesIsDiscardedWithoutTouchingTheIntent() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 21)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        try repository.database.execute(
            "INSERT INTO timers (intent_id, kind, reference, due_at, created_at) VALUES (?, 'authorization_expiry', 'att_x', 0, 0)", [intent.id])
        let timer = try #require(try repository.dueTimers(at: StorageFixtures.start).first { $0.kind == .authorizationExpiry })
        guard case .discarded(let rejection) = try repository.fireTimer(timer, at: StorageFixtures.start) else {
            Issue.record("a stale timer was not discarded")
            return
        }
        #expect(rejection.code == "payment_intent_unexpected_state")
        #expect(try repository.intent(intent.id) == intent)
        #expect(try StorageFixtures.count(repository.database, "timers", where: "kind = 'authorization_expiry'") == 0)
    }

    @Test func aReconciliationTimerAsksForALookupAndTheLookupMovesIt() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 22)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        try repository.apply(.attemptOpened(PaymentFixture.opening("att_r")), to: intent.id, expectedVersion: 1, at: StorageFixtures.start)
        let due = StorageFixtures.start.addingTimeInterval(30)
        let timer = try #require(try repository.dueTimers(at: due).first { $0.kind == .reconciliation })
        guard case .lookupDue(let intentID, let call) = try repository.fireTimer(timer, at: due) else {
            Issue.record("no lookup asked for")
            return
        }
        #expect(intentID == intent.id && call == .authorize(attemptID: "att_r"))
        #expect(try repository.callsAwaitingReconciliation().map(\.call) == [.authorize(attemptID: "att_r")])
        try repository.apply(.reconciliationNotFound(call), to: intent.id, expectedVersion: nil, at: due)
        let moved = try #require(try repository.dueTimers(at: due.addingTimeInterval(3600)).first { $0.kind == .reconciliation })
        #expect(moved.dueAt == due.addingTimeInterval(60))
        try repository.apply(.reconciliationFound(call, .declined(.genericDecline)), to: intent.id, expectedVersion: nil, at: due)
        #expect(try repository.dueTimers(at: due.addingTimeInterval(3600)).allSatisfy { $0.kind != .reconciliation })
        #expect(try repository.callsAwaitingReconciliation().isEmpty)
    }

    @Test func aReplayedApplePayTokenIsRefusedAndWritesNothing() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 23)
        let first = try StorageFixtures.createIntent(repository, random: &random)
        let second = try StorageFixtures.createIntent(repository, random: &random)
        let transactionID = "C1A2B3C4D5E6F708"
        try repository.openAttempt(
            PaymentFixture.opening("att_t1", sheet: true), intentID: first.id, tokenTransactionID: transactionID, expectedVersion: 1,
            at: StorageFixtures.start)
        let error = try #require(throws: PaymentStoreError.self) {
            try repository.openAttempt(
                PaymentFixture.opening("att_t2", sheet: true), intentID: second.id, tokenTransactionID: transactionID.lowercased(),
                expectedVersion: 1, at: StorageFixtures.start)
        }
        #expect(error.code == "token_replayed")
        #expect(error.message.contains(first.id))
        #expect(try repository.intent(second.id) == second)
        #expect(try StorageFixtures.count(repository.database, "attempts", where: "intent_id = ?", [second.id]) == 0)
        #expect(throws: PaymentStoreError.self) {
            try repository.recordTokenTransaction("not hex!", intentID: nil, attemptID: nil, at: StorageFixtures.start)
        }
    }

    @Test func aRejectedAttemptDoesNotBurnTheToken() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 24)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        let wrongAmount = PaymentFixture.opening("att_w", sheet: true, amount: Amount(minorUnits: 5, currency: PaymentFixture.usd))
        #expect(throws: PaymentRejection.self) {
            try repository.openAttempt(wrongAmount, intentID: intent.id, tokenTransactionID: "abcdef", expectedVersion: nil, at: StorageFixtures.start)
        }
        #expect(try StorageFixtures.count(repository.database, "seen_token_transactions") == 0)
    }

    @Test func inboxSkipsAProcessorEventSeenBefore() throws {
        let repository = try StorageFixtures.memoryRepository()
        #expect(try repository.recordInboxEvent(source: "mock", eventID: "evt_1", intentID: nil, at: StorageFixtures.start))
        #expect(try !repository.recordInboxEvent(source: "mock", eventID: "evt_1", intentID: nil, at: StorageFixtures.start))
        #expect(try repository.recordInboxEvent(source: "other", eventID: "evt_1", intentID: nil, at: StorageFixtures.start))
    }

    @Test func outboxHoldsOneMessagePerStatusChangeUntilDelivered() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 25)
        let intent = try StorageFixtures.capturedIntent(repository, minorUnits: 500, random: &random)
        let messages = try repository.undeliveredOutbox()
        #expect(messages.map(\.topic) == [
            "payment_intent.created", "payment_intent.processing", "payment_intent.amount_capturable_updated",
            "payment_intent.processing", "payment_intent.succeeded",
        ])
        let last = try #require(messages.last)
        let payload = try JSONParser().parse(last.payload)
        #expect(payload["intent"]?["id"]?.stringValue == intent.id)
        #expect(payload["intent"]?["status"]?.stringValue == "succeeded")
        try repository.markOutboxDelivered(messages.map(\.id), at: StorageFixtures.start)
        #expect(try repository.undeliveredOutbox().isEmpty)
    }

    @Test func listingStreamsNewestFirstAndFiltersByStatus() throws {
        let repository = try StorageFixtures.memoryRepository()
        var random = SeededRandomNumberGenerator(seed: 26)
        var created: [String] = []
        for index in 0..<5 {
            let intent = try StorageFixtures.createIntent(repository, random: &random, at: StorageFixtures.start.addingTimeInterval(Double(index)))
            created.append(intent.id)
        }
        try repository.apply(.cancelRequested(reason: .duplicate), to: created[1], expectedVersion: 1, at: StorageFixtures.start)
        var all: [String] = []
        try repository.forEachIntent(status: nil, limit: nil) { all.append($0.id) }
        #expect(all == created.reversed())
        var limited: [String] = []
        try repository.forEachIntent(status: nil, limit: 2) { limited.append($0.id) }
        #expect(limited == [created[4], created[3]])
        var canceled: [String] = []
        try repository.forEachIntent(status: .canceled, limit: nil) { canceled.append($0.id) }
        #expect(canceled == [created[1]])
    }
}
