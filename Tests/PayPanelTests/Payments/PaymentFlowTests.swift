import Foundation
import PayPanel
import Testing

/// Whole flows through the machine, checking the actions each step asks for.
@Suite struct PaymentFlowTests {
    @Test func creationSchedulesAbandonmentAndAnnouncesTheIntent() {
        let (machine, actions) = PaymentStateMachine.create(
            id: "pi_x", amount: PaymentFixture.amount, captureMethod: .automatic, orderReference: "order-1", at: PaymentFixture.start)
        #expect(machine.intent.status == .requiresPaymentMethod)
        #expect(machine.intent.version == 1)
        #expect(actions == [
            .scheduleTimer(PaymentTimer(kind: .abandonment, reference: "", dueAt: PaymentFixture.start.addingTimeInterval(24 * 3600))),
            .emitOutbox(.intentCreated, refundID: nil),
        ])
        #expect(PaymentInvariants.violations(of: machine) == [])
    }

    @Test func applePayAttemptSetsTheSheetDeadlineAndAReconciliationSafetyNet() throws {
        var fixture = PaymentFixture()
        let actions = try fixture.step(.attemptOpened(PaymentFixture.opening("att_1", sheet: true)))
        let t = fixture.now
        #expect(actions == [
            .callProcessorAuthorize(attemptID: "att_1", amount: PaymentFixture.amount),
            .cancelTimer(.abandonment, reference: ""),
            .scheduleTimer(PaymentTimer(kind: .sheetDeadline, reference: "att_1", dueAt: t.addingTimeInterval(25))),
            .scheduleTimer(PaymentTimer(kind: .reconciliation, reference: "att_1", dueAt: t.addingTimeInterval(30))),
            .emitOutbox(.intentProcessing, refundID: nil),
        ])
        #expect(fixture.intent.version == 2)
        let approved = try fixture.step(.processorAnswered(.authorize(attemptID: "att_1"), PaymentFixture.approval(PaymentFixture.amount)))
        let captureBefore = try #require(fixture.intent.captureBefore)
        #expect(captureBefore == fixture.now.addingTimeInterval(7 * 24 * 3600))
        #expect(approved == [
            .answerSheet(attemptID: "att_1", result: .success),
            .cancelTimer(.sheetDeadline, reference: "att_1"),
            .cancelTimer(.reconciliation, reference: "att_1"),
            .scheduleTimer(PaymentTimer(kind: .authorizationExpiry, reference: "att_1", dueAt: captureBefore)),
            .emitOutbox(.intentAmountCapturableUpdated, refundID: nil),
        ])
        #expect(fixture.intent.amountCapturable == 1000)
    }

    @Test func processorExpiryShortensTheCaptureWindow() throws {
        var fixture = try PaymentFixture.make(.authorizing)
        let expiresAt = fixture.now.addingTimeInterval(3600)
        try fixture.step(.processorAnswered(
            .authorize(attemptID: "att_1"), .approved(ProcessorApproval(amount: PaymentFixture.amount, processorID: "ch", expiresAt: expiresAt))))
        #expect(fixture.intent.captureBefore == expiresAt)
    }

    @Test func partialCaptureThenSeveralPartialRefunds() throws {
        var fixture = try PaymentFixture.make(.authorized)
        try fixture.step(.captureRequested(amount: 700))
        let captured = try fixture.step(.processorAnswered(.capture(attemptID: "att_1"), PaymentFixture.approval(Amount(minorUnits: 700, currency: PaymentFixture.usd))))
        #expect(captured.contains(.emitOutbox(.intentSucceeded, refundID: nil)))
        #expect(fixture.intent.amountCaptured == 700 && fixture.intent.amountCapturable == 0 && fixture.intent.amountRefundable == 700)
        for (index, amount) in [200, 300].enumerated() {
            let requested = try fixture.step(.refundRequested(refundID: "re_\(index)", amount: Int64(amount), reason: .requestedByCustomer))
            #expect(requested.first == .callProcessorRefund(refundID: "re_\(index)", attemptID: "att_1", amount: Amount(minorUnits: Int64(amount), currency: PaymentFixture.usd)))
            #expect(requested.contains(.emitOutbox(.refundCreated, refundID: "re_\(index)")))
        }
        #expect(fixture.intent.amountRefundPending == 500 && fixture.intent.amountRefundable == 200)
        try fixture.step(.processorAnswered(.refund(refundID: "re_1"), PaymentFixture.approval(Amount(minorUnits: 300, currency: PaymentFixture.usd))))
        try fixture.step(.processorAnswered(.refund(refundID: "re_0"), .pending))  // asynchronous refund
        try fixture.step(.reconciliationFound(.refund(refundID: "re_0"), PaymentFixture.approval(Amount(minorUnits: 200, currency: PaymentFixture.usd))))
        #expect(fixture.intent.amountRefunded == 500 && fixture.intent.amountRefundPending == 0)
        try fixture.step(.refundRequested(refundID: "re_last", amount: 200, reason: nil))
        #expect(throws: PaymentRejection.self) { try fixture.machine.refundRequested(refundID: "re_more", amount: 1, reason: nil, at: fixture.now) }
        #expect(fixture.intent.status == .succeeded)
    }

    @Test func lateApprovalAfterTheSheetDeadlineIsReversedAndThePayerMayPayAgain() throws {
        var fixture = try PaymentFixture.make(.authorizingWithSheet)
        try fixture.step(.processorAnswered(.authorize(attemptID: "att_1"), .unknown(reason: "timeout")), after: 10)
        let deadline = try fixture.step(.timerFired(.sheetDeadline, reference: "att_1"), after: 15)
        #expect(deadline.compactMap(\.summary) == ["answer sheet: failure"])
        #expect(fixture.intent.status == .processing)
        let late = try fixture.step(.reconciliationFound(.authorize(attemptID: "att_1"), PaymentFixture.approval(PaymentFixture.amount)), after: 30)
        #expect(late.compactMap(\.summary) == ["void (reversal)"])
        #expect(fixture.intent.amountAuthorized == 0, "a reversed approval is not the intent's authorization")
        try fixture.step(.processorAnswered(.void(attemptID: "att_1"), PaymentFixture.approval(PaymentFixture.amount)))
        #expect(fixture.intent.status == .requiresPaymentMethod)
        #expect(fixture.intent.lastError?.code == .sheetDeadlineExceeded)
        #expect(fixture.machine.attempts.first?.status == .voided)
        try fixture.step(.attemptOpened(PaymentFixture.opening("att_2", sheet: true)))
        #expect(fixture.intent.attemptCount == 2 && fixture.intent.lastError == nil)
    }

    @Test func aTimeoutIsNeverAFailureUntilTheGracePeriodHasPassed() throws {
        var fixture = try PaymentFixture.make(.authorizing)
        try fixture.step(.processorAnswered(.authorize(attemptID: "att_1"), .unknown(reason: "timeout after 10 s")))
        let unknownSince = try #require(fixture.intent.inFlight?.outcomeUnknownSince)
        try fixture.step(.reconciliationNotFound(.authorize(attemptID: "att_1")), at: unknownSince.addingTimeInterval(fixture.policy.reconciliationGrace - 1))
        #expect(fixture.intent.status == .processing && fixture.intent.inFlight?.reconciliationLookups == 1)
        try fixture.step(.reconciliationNotFound(.authorize(attemptID: "att_1")), at: unknownSince.addingTimeInterval(fixture.policy.reconciliationGrace))
        #expect(fixture.intent.status == .requiresPaymentMethod)
        #expect(fixture.intent.lastError?.code == .processorHasNoRecord)
    }

    @Test func inconclusiveLookupsEndWithTheMerchantAndBackOffOnTheWay() throws {
        var fixture = try PaymentFixture.make(.capturing)
        let call = ProcessorCall.capture(attemptID: "att_1")
        let policy = fixture.policy
        for lookup in 1..<policy.maximumReconciliationLookups {
            let actions = try fixture.step(.reconciliationUnavailable(call, reason: "lookup timed out"))
            let delay = policy.reconciliationDelays[min(lookup, policy.reconciliationDelays.count - 1)]
            #expect(actions.contains(.scheduleTimer(PaymentTimer(kind: .reconciliation, reference: "att_1", dueAt: fixture.now.addingTimeInterval(delay)))))
            #expect(fixture.intent.status == .processing)
        }
        let last = try fixture.step(.reconciliationFound(call, .unknown(reason: "still unknown")))
        #expect(fixture.intent.status == .requiresMerchantAction)
        #expect(fixture.intent.lastError?.code == .reconciliationExhausted)
        #expect(last.contains(.cancelTimer(.reconciliation, reference: "att_1")))
        #expect(last.contains(.emitOutbox(.intentRequiresMerchantAction, refundID: nil)))
    }

    @Test func notProcessedIsRetriedWithTheSameReferenceThenFails() throws {
        var fixture = try PaymentFixture.make(.authorizing)
        for _ in 0..<fixture.policy.maximumProcessorRetries {
            let actions = try fixture.step(.processorAnswered(.authorize(attemptID: "att_1"), .notProcessed(reason: "HTTP 503")))
            #expect(actions.first == .callProcessorAuthorize(attemptID: "att_1", amount: PaymentFixture.amount))
        }
        try fixture.step(.processorAnswered(.authorize(attemptID: "att_1"), .notProcessed(reason: "HTTP 429")))
        #expect(fixture.intent.status == .requiresPaymentMethod)
        #expect(fixture.intent.lastError?.code == .processorUnavailable)
    }

    @Test func expiryVoidsOnABestEffortBasisAndIsFinal() throws {
        var fixture = try PaymentFixture.make(.authorized)
        let actions = try fixture.step(.timerFired(.authorizationExpiry, reference: "att_1"), at: try #require(fixture.intent.captureBefore))
        #expect(actions.first == .voidAuthorization(attemptID: "att_1", reason: .authorizationExpired))
        #expect(actions.contains(.emitOutbox(.intentExpired, refundID: nil)))
        #expect(throws: PaymentRejection.self) {
            try fixture.machine.processorAnswered(.void(attemptID: "att_1"), PaymentFixture.approval(PaymentFixture.amount), at: fixture.now)
        }
    }

    @Test func aLostAndStolenCardIsShownToThePayerAsAGenericDecline() throws {
        var fixture = try PaymentFixture.make(.authorizing)
        try fixture.step(.processorAnswered(.authorize(attemptID: "att_1"), .declined(.stolenCard)))
        let error = try #require(fixture.intent.lastError)
        #expect(error.declineCode == .stolenCard)
        #expect(error.payerMessage == DeclineCode.genericDecline.payerMessage)
    }

    @Test func automaticCaptureGoesStraightFromApprovalToCapture() throws {
        var fixture = try PaymentFixture.make(.authorizingAutomatic)
        let actions = try fixture.step(.processorAnswered(.authorize(attemptID: "att_1"), PaymentFixture.approval(PaymentFixture.amount)))
        #expect(actions.first == .callProcessorCapture(attemptID: "att_1", amount: PaymentFixture.amount))
        #expect(fixture.intent.inFlight?.kind == .capture)
        try fixture.step(.processorAnswered(.capture(attemptID: "att_1"), PaymentFixture.approval(PaymentFixture.amount)))
        #expect(fixture.intent.status == .succeeded && fixture.intent.amountCaptured == 1000)
    }

    @Test func processorTextThatLooksLikeACardNumberIsRedacted() throws {
        var fixture = try PaymentFixture.make(.authorizing)
        let event = PaymentEvent.processorAnswered(.authorize(attemptID: "att_1"), .unknown(reason: "card 4242 4242 4242 4242 timed out"))
        try fixture.step(event)
        let stored = JSONWriter.string(event.data)
        #expect(!stored.contains("4242 4242"))
        #expect(stored.contains("[redacted]"))
    }
}
