import Foundation
import PayPanel
import TestSupport
import Testing

/// The transition suite every `PaymentStore` passes (see `StoreKind` for how a store adopts
/// it): intents, transitions, history, timers, outbox, inbox, the token replay guard and
/// listing, written only against the protocol and the ledger above it.
@Suite struct StoreConformanceTests {
    static let start = StorageFixtures.start

    // MARK: - Creating and transitions

    @Test(arguments: StoreKind.allCases)
    func createWritesTheIntentItsFirstEventTimerAndOutboxMessage(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        let repository = subject.ledger
        var random = SeededRandomNumberGenerator(seed: 1)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        #expect(try repository.intent(intent.id) == intent)
        let events = try subject.store.read { try $0.events(ofIntent: intent.id) }
        #expect(events.filter { $0.version == 1 && $0.type == "intent_created" }.count == 1)
        #expect(try repository.undeliveredOutbox().filter { $0.topic == "payment_intent.created" }.count == 1)
        let timers = try repository.dueTimers(at: Self.start.addingTimeInterval(24 * 3600))
        #expect(timers.map(\.kind) == [.abandonment])
    }

    /// Every transition of a long flow is stored so that loading it gives back exactly the
    /// machine the transition produced, with one event per version.
    @Test(arguments: StoreKind.allCases)
    func everyTransitionIsReadBackExactly(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        let repository = subject.ledger
        var random = SeededRandomNumberGenerator(seed: 2)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        let first = PaymentIDs.make(.attempt, using: &random)
        let second = PaymentIDs.make(.attempt, using: &random)
        let amount = intent.amount
        let approval = PaymentFixture.approval(amount)
        let events: [(PaymentEvent, TimeInterval)] = [
            (.attemptOpened(PaymentFixture.opening(first, sheet: true)), 1),
            (.processorAnswered(.authorize(attemptID: first), .unknown(reason: "timeout")), 10),
            (.timerFired(.sheetDeadline, reference: first), 26),
            (.reconciliationFound(.authorize(attemptID: first), approval), 40),
            (.processorAnswered(.void(attemptID: first), approval), 41),
            (.attemptOpened(PaymentFixture.opening(second)), 50),
            (.processorAnswered(.authorize(attemptID: second), .challengeRequired), 51),
            (.challengePassed(attemptID: second), 60),
            (.processorAnswered(.completeChallenge(attemptID: second), approval), 61),
            (.captureRequested(amount: 800), 70),
            (.processorAnswered(.capture(attemptID: second), .approved(ProcessorApproval(amount: Amount(minorUnits: 800, currency: amount.currency), processorID: "cap_1"))), 71),
            (.refundRequested(refundID: "re_one", amount: 300, reason: .requestedByCustomer), 80),
            (.processorAnswered(.refund(refundID: "re_one"), .pending), 81),
            (.refundRequested(refundID: "re_two", amount: 500, reason: .duplicate), 82),
            (.processorAnswered(.refund(refundID: "re_two"), .declined(.refundFailed)), 83),
            (.reconciliationFound(.refund(refundID: "re_one"), .approved(ProcessorApproval(amount: Amount(minorUnits: 300, currency: amount.currency), processorID: "rf_1"))), 90),
        ]
        for (event, offset) in events {
            let transition = try repository.apply(event, to: intent.id, expectedVersion: nil, at: Self.start.addingTimeInterval(offset))
            let loaded = try #require(try repository.loadMachine(intent.id))
            #expect(loaded == transition.machine, "after \(event.name)")
            #expect(PaymentInvariants.violations(of: loaded) == [], "after \(event.name)")
        }
        let details = try #require(try repository.details(intent.id))
        #expect(details.intent.status == .succeeded)
        #expect(details.intent.amountCaptured == 800 && details.intent.amountRefunded == 300)
        #expect(details.events.map(\.version) == Array(1...Int64(events.count + 1)))
        #expect(details.attempts.map(\.status) == [.voided, .captured])
        #expect(details.refunds.map(\.status) == [.succeeded, .failed])
        #expect(try subject.store.read { try $0.timers(ofIntent: intent.id) }.isEmpty)
        #expect(try HistoryReplay(ledger: repository).discrepancies(intentID: intent.id) == [])
    }

    /// A whole lifecycle: a declined authorization, an approved one, a capture, a partial
    /// refund and a second one; the history, the outbox and the replay agree at the end.
    @Test(arguments: StoreKind.allCases)
    func aWholeLifecycleIsStoredEventByEvent(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        let ledger = subject.ledger
        var random = SeededRandomNumberGenerator(seed: 30)
        let intent = try StorageFixtures.createIntent(ledger, random: &random)
        let amount = intent.amount
        var time = Self.start
        var known: PaymentStateMachine?
        var outboxBefore = 1
        func step(_ event: PaymentEvent, expecting status: PaymentStatus) throws {
            time = time.addingTimeInterval(1)
            let before = try #require(try ledger.loadMachine(intent.id))
            let transition = try ledger.apply(event, to: intent.id, expectedVersion: before.intent.version, at: time, known: known)
            known = transition.machine
            #expect(transition.intent.status == status, "after \(event.name)")
            #expect(transition.intent.version == before.intent.version + 1, "after \(event.name)")
            #expect(try ledger.loadMachine(intent.id) == transition.machine, "after \(event.name)")
            #expect(PaymentInvariants.violations(from: before, to: transition.machine) == [], "after \(event.name)")
            // One outbox message per change the merchant hears about, none for the others.
            let outbox = try subject.store.read { try $0.outbox(ofIntent: intent.id) }
            let emitted = transition.actions.filter { if case .emitOutbox = $0 { true } else { false } }.count
            #expect(outbox.count == outboxBefore + emitted, "after \(event.name)")
            #expect(outbox.suffix(emitted).allSatisfy { $0.intentVersion == transition.intent.version })
            outboxBefore = outbox.count
        }
        try step(.attemptOpened(PaymentFixture.opening("att_declined")), expecting: .processing)
        try step(.processorAnswered(.authorize(attemptID: "att_declined"), .declined(.insufficientFunds)), expecting: .requiresPaymentMethod)
        try step(.attemptOpened(PaymentFixture.opening("att_approved")), expecting: .processing)
        try step(.processorAnswered(.authorize(attemptID: "att_approved"), PaymentFixture.approval(amount)), expecting: .requiresCapture)
        try step(.captureRequested(amount: nil), expecting: .processing)
        try step(.processorAnswered(.capture(attemptID: "att_approved"), PaymentFixture.approval(amount)), expecting: .succeeded)
        let part = Amount(minorUnits: 250, currency: amount.currency)
        try step(.refundRequested(refundID: "re_a", amount: 250, reason: .requestedByCustomer), expecting: .succeeded)
        try step(.processorAnswered(.refund(refundID: "re_a"), PaymentFixture.approval(part)), expecting: .succeeded)
        try step(.refundRequested(refundID: "re_b", amount: 250, reason: nil), expecting: .succeeded)
        try step(.processorAnswered(.refund(refundID: "re_b"), PaymentFixture.approval(part)), expecting: .succeeded)

        let details = try #require(try ledger.details(intent.id))
        #expect(details.intent.amountCaptured == 1000 && details.intent.amountRefunded == 500 && details.intent.amountRefundPending == 0)
        #expect(details.attempts.map(\.id) == ["att_declined", "att_approved"])
        #expect(details.attempts.map(\.status) == [.failed, .captured])
        #expect(details.refunds.map(\.id) == ["re_a", "re_b"] && details.refunds.allSatisfy { $0.status == .succeeded })
        #expect(details.events.map(\.version) == Array(1...details.intent.version))
        #expect(details.events.first?.type == "intent_created" && details.events.first?.fromStatus == nil)
        for (earlier, later) in zip(details.events, details.events.dropFirst()) {
            #expect(later.fromStatus == earlier.toStatus, "version \(later.version)")
            #expect(later.occurredAt >= earlier.occurredAt)
        }
        #expect(details.events.last?.toStatus == .succeeded)
        #expect(try subject.store.read { try $0.eventCount() } == Int(details.intent.version))
        #expect(try subject.store.read { try $0.integrityFindings() } == [])
        #expect(try HistoryReplay(ledger: ledger).discrepancies(intentID: intent.id) == [])
        let replayAll = try HistoryReplay(ledger: ledger).discrepanciesOfAllIntents()
        #expect(replayAll.intents == 1 && replayAll.findings == [])
        let topics = try subject.store.read { try $0.outbox(ofIntent: intent.id) }.map(\.topic)
        #expect(topics.first == "payment_intent.created" && topics.contains("payment_intent.succeeded"))
        #expect(try ledger.undeliveredOutbox(limit: 1000).count == topics.count)
    }

    @Test(arguments: StoreKind.allCases)
    func timesAreKeptToTheMillisecondAndReadBackEqual(kind: StoreKind) throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let repository = storeUnderTest.ledger
        var random = SeededRandomNumberGenerator(seed: 9)
        let odd = Self.start.addingTimeInterval(0.123_456_7)
        let intent = try StorageFixtures.createIntent(repository, random: &random, at: odd)
        #expect(try repository.intent(intent.id) == intent)
        let transition = try repository.apply(.attemptOpened(PaymentFixture.opening("att_ms")), to: intent.id, expectedVersion: 1, at: odd.addingTimeInterval(1.000_9))
        #expect(try repository.loadMachine(intent.id) == transition.machine)
        #expect(Timestamp.format(transition.intent.updatedAt) == "2026-11-18T11:06:41.124Z")
    }

    @Test(arguments: StoreKind.allCases)
    func aStaleVersionChangesNothing(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        let repository = subject.ledger
        var random = SeededRandomNumberGenerator(seed: 3)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        try repository.apply(.attemptOpened(PaymentFixture.opening("att_a")), to: intent.id, expectedVersion: 1, at: Self.start)
        let before = try subject.contents()
        let error = try #require(throws: PaymentStoreError.self) {
            try repository.apply(.cancelRequested(reason: .duplicate), to: intent.id, expectedVersion: 1, at: Self.start)
        }
        #expect(error.code == "version_conflict")
        #expect(error.message.contains("expected version 1, it is at 2"))
        #expect(try repository.intent(intent.id)?.version == 2)
        #expect(try subject.contents() == before)
    }

    @Test(arguments: StoreKind.allCases)
    func aRejectedEventWritesNothing(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        let repository = subject.ledger
        var random = SeededRandomNumberGenerator(seed: 4)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        let before = try subject.contents()
        #expect(throws: PaymentRejection.self) {
            try repository.apply(.captureRequested(amount: nil), to: intent.id, expectedVersion: 1, at: Self.start)
        }
        #expect(try subject.contents() == before)
        #expect(try repository.intent(intent.id) == intent)
        #expect(throws: PaymentStoreError.self) {
            try repository.apply(.cancelRequested(reason: .duplicate), to: "pi_missing", expectedVersion: nil, at: Self.start)
        }
        #expect(try subject.contents() == before)
    }

    /// A write that throws part-way leaves nothing behind, whatever it had done before.
    @Test(arguments: StoreKind.allCases)
    func aWriteThatThrowsIsRolledBack(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        var random = SeededRandomNumberGenerator(seed: 31)
        let intent = try StorageFixtures.createIntent(subject.ledger, random: &random)
        let before = try subject.contents()
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try subject.store.write { transaction in
                try subject.ledger.apply(.cancelRequested(reason: .duplicate), to: intent.id, expectedVersion: 1, at: Self.start, in: transaction)
                _ = try subject.ledger.create(try NewPaymentIntent(amount: PaymentFixture.amount), id: "pi_rolledback", at: Self.start, in: transaction)
                throw Boom()
            }
        }
        #expect(try subject.contents() == before)
        #expect(try subject.ledger.intent("pi_rolledback") == nil)
    }

    // MARK: - Timers

    @Test(arguments: StoreKind.allCases)
    func abandonmentTimerCancelsAnUnpaidIntentOnce(kind: StoreKind) throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let repository = storeUnderTest.ledger
        var random = SeededRandomNumberGenerator(seed: 20)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        let later = Self.start.addingTimeInterval(24 * 3600)
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

    @Test(arguments: StoreKind.allCases)
    func aTimerThatNoLongerAppliesIsDiscardedWithoutTouchingTheIntent(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        let repository = subject.ledger
        var random = SeededRandomNumberGenerator(seed: 21)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        try subject.store.write { transaction in
            try transaction.scheduleTimer(
                PaymentTimer(kind: .authorizationExpiry, reference: "att_x", dueAt: Date(timeIntervalSince1970: 0)), intentID: intent.id,
                at: Date(timeIntervalSince1970: 0))
        }
        let timer = try #require(try repository.dueTimers(at: Self.start).first { $0.kind == .authorizationExpiry })
        guard case .discarded(let rejection) = try repository.fireTimer(timer, at: Self.start) else {
            Issue.record("a stale timer was not discarded")
            return
        }
        #expect(rejection.code == "payment_intent_unexpected_state")
        #expect(try repository.intent(intent.id) == intent)
        #expect(try subject.store.read { try $0.timers(ofIntent: intent.id) }.filter { $0.kind == .authorizationExpiry }.isEmpty)
    }

    /// Scheduling the same timer again moves it; cancelling deletes it; a moved timer is no
    /// longer the one that was due; `dueTimers` filters by intent, earliest first.
    @Test(arguments: StoreKind.allCases)
    func timersAreScheduledMovedAndCancelled(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        var random = SeededRandomNumberGenerator(seed: 32)
        let first = try StorageFixtures.createIntent(subject.ledger, random: &random)
        let second = try StorageFixtures.createIntent(subject.ledger, random: &random)
        let due = Self.start.addingTimeInterval(10)
        try subject.store.write { transaction in
            try transaction.scheduleTimer(PaymentTimer(kind: .challengeExpiry, reference: "att_c", dueAt: due), intentID: first.id, at: Self.start)
            try transaction.scheduleTimer(PaymentTimer(kind: .sheetDeadline, reference: "att_s", dueAt: due.addingTimeInterval(1)), intentID: second.id, at: Self.start)
        }
        let dueNow = try subject.ledger.dueTimers(at: due.addingTimeInterval(1))
        #expect(dueNow.map(\.kind) == [.challengeExpiry, .sheetDeadline])
        #expect(try subject.ledger.dueTimers(at: due.addingTimeInterval(1), intentID: second.id).map(\.kind) == [.sheetDeadline])
        #expect(try subject.ledger.dueTimers(at: due.addingTimeInterval(1), limit: 1).count == 1)
        #expect(try subject.ledger.dueTimers(at: due.addingTimeInterval(-1)).isEmpty)
        let challenge = try #require(dueNow.first)
        #expect(challenge.dueAt == due && challenge.intentID == first.id && challenge.reference == "att_c")
        #expect(try subject.store.read { try $0.isStillDue(challenge, at: due) })
        #expect(try subject.store.read { try !$0.isStillDue(challenge, at: due.addingTimeInterval(-1)) })

        try subject.store.write { transaction in
            try transaction.scheduleTimer(PaymentTimer(kind: .challengeExpiry, reference: "att_c", dueAt: due.addingTimeInterval(100)), intentID: first.id, at: due)
        }
        let moved = try subject.store.read { try $0.timers(ofIntent: first.id) }.filter { $0.kind == .challengeExpiry }
        #expect(moved.map(\.dueAt) == [due.addingTimeInterval(100)])
        #expect(try subject.store.read { try !$0.isStillDue(challenge, at: due.addingTimeInterval(200)) })
        #expect(try subject.ledger.fireTimer(challenge, at: due.addingTimeInterval(1)).isAlreadyHandled)

        try subject.store.write { try $0.cancelTimer(.challengeExpiry, reference: "att_c", intentID: first.id) }
        #expect(try subject.store.read { try $0.timers(ofIntent: first.id) }.map(\.kind) == [.abandonment])
        try subject.store.write { try $0.cancelTimer(.challengeExpiry, reference: "att_c", intentID: first.id) }  // nothing left: no error
        let sheet = try #require(try subject.ledger.dueTimers(at: due.addingTimeInterval(1), intentID: second.id).first)
        try subject.store.write { try $0.deleteTimer(id: sheet.id) }
        #expect(try subject.store.read { try $0.timers(ofIntent: second.id) }.map(\.kind) == [.abandonment])
    }

    @Test(arguments: StoreKind.allCases)
    func aReconciliationTimerAsksForALookupAndTheLookupMovesIt(kind: StoreKind) throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let repository = storeUnderTest.ledger
        var random = SeededRandomNumberGenerator(seed: 22)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        try repository.apply(.attemptOpened(PaymentFixture.opening("att_r")), to: intent.id, expectedVersion: 1, at: Self.start)
        let due = Self.start.addingTimeInterval(30)
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

    // MARK: - Apple Pay token replay guard

    @Test(arguments: StoreKind.allCases)
    func aReplayedApplePayTokenIsRefusedAndWritesNothing(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        let repository = subject.ledger
        var random = SeededRandomNumberGenerator(seed: 23)
        let first = try StorageFixtures.createIntent(repository, random: &random)
        let second = try StorageFixtures.createIntent(repository, random: &random)
        let transactionID = "C1A2B3C4D5E6F708"
        try repository.openAttempt(
            PaymentFixture.opening("att_t1", sheet: true), intentID: first.id, tokenTransactionID: transactionID, expectedVersion: 1,
            at: Self.start)
        let before = try subject.contents()
        let error = try #require(throws: PaymentStoreError.self) {
            try repository.openAttempt(
                PaymentFixture.opening("att_t2", sheet: true), intentID: second.id, tokenTransactionID: transactionID.lowercased(),
                expectedVersion: 1, at: Self.start)
        }
        #expect(error.code == "token_replayed")
        #expect(error.message.contains(first.id))
        #expect(try repository.intent(second.id) == second)
        #expect(try subject.store.read { try $0.attempts(ofIntent: second.id) }.isEmpty)
        #expect(try subject.contents() == before)
        #expect(try subject.store.read { try $0.tokenTransaction(transactionID.lowercased()) } == .some(first.id))
        #expect(throws: PaymentStoreError.self) {
            try repository.recordTokenTransaction("not hex!", intentID: nil, attemptID: nil, at: Self.start)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRejectedAttemptDoesNotBurnTheToken(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        let repository = subject.ledger
        var random = SeededRandomNumberGenerator(seed: 24)
        let intent = try StorageFixtures.createIntent(repository, random: &random)
        let wrongAmount = PaymentFixture.opening("att_w", sheet: true, amount: Amount(minorUnits: 5, currency: PaymentFixture.usd))
        #expect(throws: PaymentRejection.self) {
            try repository.openAttempt(wrongAmount, intentID: intent.id, tokenTransactionID: "abcdef", expectedVersion: nil, at: Self.start)
        }
        #expect(try subject.store.read { try $0.tokenTransaction("abcdef") } == nil)
        // The id is still free: the corrected attempt uses it, and then it is spent.
        try repository.openAttempt(
            PaymentFixture.opening("att_w", sheet: true), intentID: intent.id, tokenTransactionID: "ABCDEF", expectedVersion: nil, at: Self.start)
        #expect(try subject.store.read { try $0.tokenTransaction("abcdef") } == .some(intent.id))
        #expect(throws: PaymentStoreError.self) {
            try repository.recordTokenTransaction("abcdef", intentID: nil, attemptID: nil, at: Self.start)
        }
    }

    // MARK: - Inbox and outbox

    @Test(arguments: StoreKind.allCases)
    func inboxSkipsAProcessorEventSeenBefore(kind: StoreKind) throws {
        // Held to the end: it keeps the store's temporary directory, and so its file, in place.
        let storeUnderTest = try kind.makeStore()
        defer { withExtendedLifetime(storeUnderTest) {} }
        let repository = storeUnderTest.ledger
        #expect(try repository.recordInboxEvent(source: "mock", eventID: "evt_1", intentID: nil, at: Self.start))
        #expect(try !repository.recordInboxEvent(source: "mock", eventID: "evt_1", intentID: nil, at: Self.start))
        #expect(try repository.recordInboxEvent(source: "other", eventID: "evt_1", intentID: nil, at: Self.start))
    }

    @Test(arguments: StoreKind.allCases)
    func outboxHoldsOneMessagePerStatusChangeUntilDelivered(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        let repository = subject.ledger
        var random = SeededRandomNumberGenerator(seed: 25)
        let intent = try StorageFixtures.capturedIntent(repository, minorUnits: 500, random: &random)
        let messages = try repository.undeliveredOutbox()
        #expect(messages.map(\.topic) == [
            "payment_intent.created", "payment_intent.processing", "payment_intent.amount_capturable_updated",
            "payment_intent.processing", "payment_intent.succeeded",
        ])
        #expect(messages.map(\.intentVersion) == [1, 2, 3, 4, 5])
        #expect(try subject.store.read { try $0.outbox(ofIntent: intent.id) } == messages)
        let last = try #require(messages.last)
        let payload = try JSONParser().parse(last.payload)
        #expect(payload["intent"]?["id"]?.stringValue == intent.id)
        #expect(payload["intent"]?["status"]?.stringValue == "succeeded")
        #expect(try repository.undeliveredOutbox(limit: 2) == Array(messages.prefix(2)))
        try repository.markOutboxDelivered(messages.prefix(2).map(\.id), at: Self.start)
        #expect(try repository.undeliveredOutbox() == Array(messages.dropFirst(2)))
        try repository.markOutboxDelivered(messages.map(\.id), at: Self.start)
        #expect(try repository.undeliveredOutbox().isEmpty)
        #expect(try subject.store.read { try $0.outbox(ofIntent: intent.id) }.count == messages.count)
    }

    // MARK: - Reading

    @Test(arguments: StoreKind.allCases)
    func listingStreamsNewestFirstAndFiltersByStatus(kind: StoreKind) throws {
        let subject = try kind.makeStore()
        let repository = subject.ledger
        var random = SeededRandomNumberGenerator(seed: 26)
        var created: [String] = []
        for index in 0..<5 {
            let intent = try StorageFixtures.createIntent(repository, random: &random, at: Self.start.addingTimeInterval(Double(index)))
            created.append(intent.id)
        }
        try repository.apply(.cancelRequested(reason: .duplicate), to: created[1], expectedVersion: 1, at: Self.start)
        var all: [String] = []
        try repository.forEachIntent(status: nil, limit: nil) { all.append($0.id) }
        #expect(all == created.reversed())
        var limited: [String] = []
        try repository.forEachIntent(status: nil, limit: 2) { limited.append($0.id) }
        #expect(limited == [created[4], created[3]])
        var canceled: [String] = []
        try repository.forEachIntent(status: .canceled, limit: nil) { canceled.append($0.id) }
        #expect(canceled == [created[1]])
        #expect(try subject.store.read { try $0.allIntentIDs() } == created)
        #expect(try repository.details("pi_missing") == nil)
        #expect(try repository.loadMachine("pi_missing") == nil)
    }
}

extension TimerFiring {
    var isAlreadyHandled: Bool {
        if case .alreadyHandled = self { return true }
        return false
    }
}
