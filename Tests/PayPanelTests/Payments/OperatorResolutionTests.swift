import Foundation
import PayPanel
import Testing

/// The ways out of requires_merchant_action, event by event: what each resolution asks for,
/// the state it leaves, the ledger rule (refused unless forced), and the record it keeps.
@Suite struct OperatorResolutionTests {
    static let usd = PaymentFixture.usd
    static let expiry = PaymentFixture.start.addingTimeInterval(3 * 86_400)

    static func held(_ minorUnits: Int64 = 1000, expiresAt: Date? = OperatorResolutionTests.expiry) -> ProcessorHolding {
        .authorization(HeldAuthorization(amount: Amount(minorUnits: minorUnits, currency: usd), processorID: "auth_000001", expiresAt: expiresAt))
    }

    static let nothing = ProcessorHolding.nothingHeld("it has no record of the authorization")

    // MARK: - authorized

    @Test func authorizedHoldsTheProcessorsAuthorizationWithItsDeadlineAndExpiryTimer() throws {
        var fixture = try PaymentFixture.make(.merchantAction)
        let actions = try fixture.step(fixture.resolved(.authorized, Self.held()))
        #expect(fixture.intent.status == .requiresCapture)
        #expect(fixture.intent.amountAuthorized == 1000 && fixture.intent.amountCapturable == 1000)
        #expect(fixture.intent.captureBefore == Self.expiry, "the processor's expiry comes before 7 days from the attempt")
        #expect(fixture.intent.lastError == nil)
        let attempt = try #require(fixture.machine.attempts.last)
        #expect(attempt.status == .authorized && attempt.processorID == "auth_000001" && attempt.approvedAmount?.minorUnits == 1000)
        #expect(actions == [
            .scheduleTimer(PaymentTimer(kind: .authorizationExpiry, reference: "att_1", dueAt: Self.expiry)),
            .emitOutbox(.intentAmountCapturableUpdated, refundID: nil),
        ])
        try fixture.step(.captureRequested(amount: nil))
        try fixture.step(.processorAnswered(.capture(attemptID: "att_1"), PaymentFixture.approval(PaymentFixture.amount)))
        #expect(fixture.intent.status == .succeeded && fixture.intent.amountCaptured == 1000)
    }

    @Test func theCaptureWindowCountsFromTheAttemptNotFromTheResolution() throws {
        var fixture = try PaymentFixture.make(.merchantAction)
        let opened = try #require(fixture.machine.attempts.last?.createdAt)
        try fixture.step(fixture.resolved(.authorized, Self.held(expiresAt: nil)), after: 2 * 86_400)
        #expect(fixture.intent.captureBefore == opened.addingTimeInterval(7 * 86_400))
    }

    @Test func authorizedOnAutomaticCaptureCapturesAtOnceAsAfterAnApproval() throws {
        var fixture = try PaymentFixture.make(.merchantActionAutomatic)
        let actions = try fixture.step(fixture.resolved(.authorized, Self.held()))
        #expect(fixture.intent.status == .processing && fixture.intent.inFlight?.kind == .capture)
        #expect(actions.first == .callProcessorCapture(attemptID: "att_1", amount: PaymentFixture.amount))
        #expect(actions.contains(.scheduleTimer(PaymentTimer(kind: .reconciliation, reference: "att_1", dueAt: fixture.now.addingTimeInterval(30)))))
        try fixture.step(.processorAnswered(.capture(attemptID: "att_1"), PaymentFixture.approval(PaymentFixture.amount)))
        #expect(fixture.intent.status == .succeeded)
    }

    @Test func aPartialAuthorizationIsCapturableForWhatTheProcessorHolds() throws {
        var fixture = try PaymentFixture.make(.merchantAction)
        try fixture.step(fixture.resolved(.authorized, Self.held(999)))
        #expect(fixture.intent.amountCapturable == 999)
    }

    @Test func authorizedAfterTheWindowIsRefused() throws {
        var fixture = try PaymentFixture.make(.merchantAction)
        let before = fixture.machine
        #expect(throws: PaymentRejection.self) {
            try fixture.machine.apply(fixture.resolved(.authorized, Self.held(expiresAt: nil)), at: fixture.now.addingTimeInterval(8 * 86_400))
        }
        #expect(fixture.machine == before)
    }

    // MARK: - succeeded

    @Test func succeededTakesWhatTheProcessorCaptured() throws {
        var fixture = try PaymentFixture.make(.authorized)
        try fixture.step(.captureRequested(amount: 600))
        // The processor captured another amount: an operator must look.
        try fixture.step(.processorAnswered(.capture(attemptID: "att_1"), PaymentFixture.approval(Amount(minorUnits: 650, currency: Self.usd))))
        #expect(fixture.intent.status == .requiresMerchantAction)
        let actions = try fixture.step(fixture.resolved(.succeeded, .captured(Amount(minorUnits: 650, currency: Self.usd))))
        #expect(fixture.intent.status == .succeeded && fixture.intent.amountCaptured == 650 && fixture.intent.amountAuthorized == 1000)
        #expect(fixture.machine.attempts.last?.status == .captured)
        #expect(actions == [.emitOutbox(.intentSucceeded, refundID: nil)])
        #expect(fixture.intent.amountRefundable == 650)
    }

    @Test func forcedSucceededCapturesTheAuthorizedAmountAndIsRecordedAsForced() throws {
        var fixture = try PaymentFixture.make(.merchantActionAutomatic)
        let event = fixture.resolved(.succeeded, Self.nothing, forced: true)
        try fixture.step(event)
        #expect(fixture.intent.status == .succeeded && fixture.intent.amountCaptured == 1000 && fixture.intent.amountAuthorized == 1000)
        let data = event.data
        #expect(data["resolution"] == "mark_succeeded" && data["forced"] == true && data["operator"] == "alice")
        #expect(data["processor"]?["holding"] == "nothing")
        #expect(data["processor"]?["reason"] == "it has no record of the authorization")
    }

    // MARK: - canceled

    @Test func canceledVoidsAnAuthorizationTheProcessorStillHolds() throws {
        var fixture = try PaymentFixture.make(.merchantAction)
        let actions = try fixture.step(fixture.resolved(.canceled, Self.held()))
        #expect(fixture.intent.status == .processing && fixture.intent.inFlight?.voidPurpose == .cancel)
        #expect(fixture.intent.cancellationReason == .operator)
        #expect(actions.first == .voidAuthorization(attemptID: "att_1", reason: .cancel))
        try fixture.step(.processorAnswered(.void(attemptID: "att_1"), PaymentFixture.approval(PaymentFixture.amount)))
        #expect(fixture.intent.status == .canceled && fixture.intent.cancellationReason == .operator)
        #expect(fixture.machine.attempts.last?.status == .voided)
    }

    @Test func aVoidTheProcessorRefusesLeavesTheAuthorizationCapturable() throws {
        var fixture = try PaymentFixture.make(.merchantAction)
        try fixture.step(fixture.resolved(.canceled, Self.held()))
        try fixture.step(.processorAnswered(.void(attemptID: "att_1"), .declined(.voidFailed)))
        #expect(fixture.intent.status == .requiresCapture && fixture.intent.amountCapturable == 1000)
        #expect(fixture.intent.captureBefore == Self.expiry && fixture.intent.lastError?.code == .voidFailed)
        #expect(fixture.intent.cancellationReason == nil)
    }

    @Test(arguments: [(OperatorResolutionTests.nothing, AttemptStatus.failed), (.voided, .voided)])
    func canceledWithNothingHeldIsFinalAtOnce(holding: ProcessorHolding, attempt: AttemptStatus) throws {
        var fixture = try PaymentFixture.make(.merchantActionAutomatic)
        let actions = try fixture.step(fixture.resolved(.canceled, holding))
        #expect(fixture.intent.status == .canceled && fixture.intent.cancellationReason == .operator && fixture.intent.lastError == nil)
        #expect(fixture.machine.attempts.last?.status == attempt)
        #expect(actions.compactMap(\.summary) == [])
        #expect(actions.contains(.cancelTimer(.reconciliation, reference: "att_1")) == false, "nothing was in flight")
    }

    // MARK: - retry

    @Test func retryEndsTheAttemptSetsTheLastErrorAndLetsThePayerPayAgain() throws {
        var fixture = try PaymentFixture.make(.merchantActionAutomatic)
        let actions = try fixture.step(fixture.resolved(.retry, Self.nothing))
        #expect(fixture.intent.status == .requiresPaymentMethod)
        #expect(fixture.intent.lastError?.code == .resolvedByOperator && fixture.intent.lastError?.attemptID == "att_1")
        #expect(fixture.intent.lastError?.payerMessage == "This payment could not be completed. Try again.")
        #expect(fixture.machine.attempts.last?.status == .failed && fixture.machine.attempts.last?.failure?.code == .resolvedByOperator)
        #expect(actions == [
            .scheduleTimer(PaymentTimer(kind: .abandonment, reference: "", dueAt: fixture.now.addingTimeInterval(24 * 3600))),
            .emitOutbox(.intentPaymentFailed, refundID: nil),
        ])
        try fixture.step(.attemptOpened(PaymentFixture.opening("att_2")))
        try fixture.step(.processorAnswered(.authorize(attemptID: "att_2"), PaymentFixture.approval(PaymentFixture.amount)))
        #expect(fixture.intent.status == .processing && fixture.intent.inFlight?.kind == .capture)
    }

    @Test func retryForgetsAnAuthorizationTheProcessorVoided() throws {
        var fixture = try PaymentFixture.make(.authorized)
        try fixture.step(.cancelRequested(reason: .duplicate))
        try fixture.step(.reconciliationExhausted(.void(attemptID: "att_1")))
        #expect(fixture.intent.status == .requiresMerchantAction && fixture.intent.amountAuthorized == 1000)
        try fixture.step(fixture.resolved(.retry, .voided))
        #expect(fixture.intent.status == .requiresPaymentMethod && fixture.intent.amountAuthorized == 0 && fixture.intent.captureBefore == nil)
        #expect(fixture.machine.attempts.last?.status == .voided)
    }

    @Test func retryIsRefusedWhenNoAttemptIsLeft() throws {
        var fixture = PaymentFixture(policy: PaymentPolicy(maximumAttempts: 1))
        try fixture.step(.attemptOpened(PaymentFixture.opening("att_1")))
        try fixture.step(.reconciliationExhausted(.authorize(attemptID: "att_1")))
        #expect {
            try fixture.machine.apply(fixture.resolved(.retry, Self.nothing), at: fixture.now.addingTimeInterval(1))
        } throws: { error in
            (error as? PaymentRejection)?.code == "invalid_resolution" && (error as? PaymentRejection)?.message.contains("resolve it as canceled") == true
        }
        try fixture.step(fixture.resolved(.canceled, Self.nothing))
    }

    // MARK: - The ledger rule

    static let contradictions: [(IntentResolution, ProcessorHolding)] = [
        (.authorized, nothing), (.authorized, .voided), (.authorized, .captured(PaymentFixture.amount)),
        (.succeeded, nothing), (.succeeded, held()), (.succeeded, .voided),
        (.canceled, .captured(PaymentFixture.amount)), (.retry, held()), (.retry, .captured(PaymentFixture.amount)),
        (.retry, .notKnown("no answer within 30s")), (.canceled, .notKnown("no answer within 30s")),
    ]

    @Test(arguments: contradictions)
    func aResolutionTheLedgerContradictsIsRefusedThenAcceptedWhenForced(resolution: IntentResolution, holding: ProcessorHolding) throws {
        var fixture = try PaymentFixture.make(.merchantAction)
        let before = fixture.machine
        #expect {
            try fixture.machine.apply(fixture.resolved(resolution, holding), at: fixture.now.addingTimeInterval(1))
        } throws: { error in
            guard let rejection = error as? PaymentRejection else { return false }
            #expect(rejection.code == "resolution_contradicts_processor")
            #expect(rejection.message.hasPrefix("cannot resolve payment intent pi_test as \(resolution.rawValue): \(holding.summary(attemptID: "att_1"))"))
            #expect(rejection.message.hasSuffix("or force the resolution to override the processor's ledger"))
            return true
        }
        #expect(fixture.machine == before)
        try fixture.step(fixture.resolved(resolution, holding, forced: true))
        #expect(fixture.intent.status != .requiresMerchantAction)
    }

    @Test func theRefusalNamesTheResolutionsTheLedgerAllows() throws {
        var fixture = try PaymentFixture.make(.merchantAction)
        #expect {
            try fixture.machine.apply(fixture.resolved(.succeeded, Self.held()), at: fixture.now.addingTimeInterval(1))
        } throws: { error in
            (error as? PaymentRejection)?.message
                == "cannot resolve payment intent pi_test as succeeded: the processor holds an authorization of 10.00 USD for att_1 (auth_000001), neither captured nor voided; resolve it as authorized or canceled instead, or force the resolution to override the processor's ledger"
        }
    }

    @Test func resolutionsOutsideRequiresMerchantActionAreRefused() throws {
        for situation in [Situation.new, .authorizing, .authorized, .succeeded, .canceled, .expired] {
            var fixture = try PaymentFixture.make(situation)
            for resolution in IntentResolution.allCases {
                let before = fixture.machine
                #expect(throws: PaymentRejection.self, "\(situation) accepted \(resolution)") {
                    try fixture.machine.apply(fixture.resolved(resolution, Self.held(), forced: true), at: fixture.now.addingTimeInterval(1))
                }
                #expect(fixture.machine == before)
            }
        }
    }

    // MARK: - The record

    @Test func theNoteAndTheNameAreBoundedPrintableAndHoldNoCardNumber() throws {
        let refused = try #require(throws: PaymentInputError.self) {
            try OperatorRecord(note: "card 4242 4242 4242 4242 was declined by phone", actor: "alice")
        }
        #expect(refused.code == "card_number_in_text" && refused.field == "note" && !refused.message.contains("4242"))
        #expect(try #require(throws: PaymentInputError.self) { try OperatorRecord(note: "ok", actor: "4242424242424242") }.field == "operator")
        // A processor reference of 13 digits that is no card number is kept as written.
        #expect(try OperatorRecord(note: "processor ref 1234567890123 shows the approval", actor: "alice").note
            == "processor ref 1234567890123 shows the approval")
        #expect(throws: PaymentInputError.self) { try OperatorRecord(note: "  ", actor: "alice") }
        #expect(throws: PaymentInputError.self) { try OperatorRecord(note: String(repeating: "a", count: 501), actor: "alice") }
        #expect(throws: PaymentInputError.self) { try OperatorRecord(note: "line one\nline two", actor: "alice") }
        #expect(throws: PaymentInputError.self) { try OperatorRecord(note: "fine", actor: "") }
        #expect(throws: PaymentInputError.self) { try OperatorRecord(note: "fine", actor: String(repeating: "b", count: 101)) }
        #expect((try? OperatorRecord(note: String(repeating: "a", count: 500), actor: "alice")) != nil)
        do {
            _ = try OperatorRecord(note: "bad\u{07}\(String(repeating: "x", count: 300))", actor: "alice")
        } catch {
            #expect(error.code == "invalid_resolution_note")
            #expect(error.message.count < 220, "a long note is quoted short: \(error.message)")
        }
    }

    @Test func theLookupsBecomeWhatTheProcessorHolds() {
        let approval = ProcessorOutcome.approved(ProcessorApproval(amount: PaymentFixture.amount, processorID: "auth_1", expiresAt: Self.expiry))
        let heldOne = ProcessorHolding.authorization(HeldAuthorization(amount: PaymentFixture.amount, processorID: "auth_1", expiresAt: Self.expiry))
        #expect(ProcessorHolding.from(authorization: .notFound, capture: nil, void: nil).name == "nothing")
        #expect(ProcessorHolding.from(authorization: .found(.declined(.insufficientFunds)), capture: nil, void: nil)
            == .nothingHeld("it declined the authorization (insufficient_funds)"))
        #expect(ProcessorHolding.from(authorization: .found(.challengeRequired), capture: nil, void: nil).name == "nothing")
        #expect(ProcessorHolding.from(authorization: .unavailable(reason: "no answer within 30s"), capture: nil, void: nil).name == "unknown")
        #expect(ProcessorHolding.from(authorization: .found(.unknown(reason: "HTTP 500")), capture: nil, void: nil).name == "unknown")
        #expect(ProcessorHolding.from(authorization: .found(approval), capture: .notFound, void: .notFound) == heldOne)
        #expect(ProcessorHolding.from(authorization: .found(approval), capture: .found(.declined(.captureFailed)), void: .notFound) == heldOne)
        #expect(ProcessorHolding.from(authorization: .found(approval), capture: .found(approval), void: nil) == .captured(PaymentFixture.amount))
        #expect(ProcessorHolding.from(authorization: .found(approval), capture: .notFound, void: .found(approval)) == .voided)
        #expect(ProcessorHolding.from(authorization: .found(approval), capture: .unavailable(reason: "x"), void: nil).name == "unknown")
        #expect(ProcessorHolding.from(authorization: .found(approval), capture: .notFound, void: .unavailable(reason: "x")).name == "unknown")
        #expect(ProcessorHolding.nothingHeld("ref 4000 0000 0000 0002").summary(attemptID: "att_1") == "the processor holds nothing for att_1: ref [redacted]")
    }
}
