import Foundation
import PayPanel
import Testing

/// The guards: each refused event throws its typed rejection and changes nothing.
@Suite struct PaymentGuardTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let situation: Situation
        let event: PaymentEvent
        let code: String
        var testDescription: String { name }
    }

    static let usd = PaymentFixture.usd
    static let eur = try! Currency(code: "EUR")  // a constant, not input

    static func resolved(_ resolution: IntentResolution, _ holding: ProcessorHolding?, forced: Bool = false) -> PaymentEvent {
        .operatorResolved(.intent(resolution), PaymentFixture.record(holding, forced: forced))
    }

    static let cases: [Case] = [
        Case(name: "a token for another amount", situation: .new,
             event: .attemptOpened(PaymentFixture.opening("att_x", amount: Amount(minorUnits: 500, currency: usd))), code: "amount_mismatch"),
        Case(name: "a token in another currency", situation: .new,
             event: .attemptOpened(PaymentFixture.opening("att_x", amount: Amount(minorUnits: 1000, currency: eur))), code: "amount_mismatch"),
        Case(name: "capture of nothing", situation: .authorized, event: .captureRequested(amount: 0), code: "amount_too_large"),
        Case(name: "capture above the capturable amount", situation: .authorized, event: .captureRequested(amount: 1001), code: "amount_too_large"),
        Case(name: "capture of a negative amount", situation: .authorized, event: .captureRequested(amount: -5), code: "amount_too_large"),
        Case(name: "capture before authorization", situation: .new, event: .captureRequested(amount: nil), code: "payment_intent_unexpected_state"),
        Case(name: "capture while a call is in flight", situation: .authorizing, event: .captureRequested(amount: nil), code: "payment_intent_operation_in_flight"),
        Case(name: "cancel while a call is in flight", situation: .capturing, event: .cancelRequested(reason: .duplicate), code: "payment_intent_operation_in_flight"),
        Case(name: "refund of nothing", situation: .succeeded, event: .refundRequested(refundID: "re_x", amount: 0, reason: nil), code: "refund_amount_invalid"),
        Case(name: "refund above the captured amount", situation: .succeeded, event: .refundRequested(refundID: "re_x", amount: 1001, reason: nil), code: "refund_exceeds_captured_amount"),
        Case(name: "refund above the remainder (a pending refund reserves its amount)", situation: .refunding,
             event: .refundRequested(refundID: "re_x", amount: 601, reason: nil), code: "refund_exceeds_captured_amount"),
        Case(name: "a refund id used twice", situation: .refunding, event: .refundRequested(refundID: "re_1", amount: 10, reason: nil), code: "refund_already_exists"),
        Case(name: "refund before capture", situation: .authorized, event: .refundRequested(refundID: "re_x", amount: 10, reason: nil), code: "payment_intent_unexpected_state"),
        Case(name: "an answer for a call nobody waits on", situation: .authorizing,
             event: .processorAnswered(.capture(attemptID: "att_1"), .approved(ProcessorApproval(amount: PaymentFixture.amount, processorID: "x"))),
             code: "processor_answer_not_expected"),
        Case(name: "an answer for another attempt", situation: .authorizing,
             event: .processorAnswered(.authorize(attemptID: "att_other"), .declined(.genericDecline)), code: "processor_answer_not_expected"),
        Case(name: "a challenge for a capture", situation: .capturing,
             event: .processorAnswered(.capture(attemptID: "att_1"), .challengeRequired), code: "processor_answer_not_expected"),
        Case(name: "a challenge result for another attempt", situation: .challenge, event: .challengePassed(attemptID: "att_other"), code: "attempt_not_found"),
        Case(name: "an answer to an unknown refund", situation: .refunding,
             event: .processorAnswered(.refund(refundID: "re_other"), .declined(.refundFailed)), code: "refund_not_found"),
        Case(name: "mark authorized above the intent's amount", situation: .merchantAction,
             event: resolved(.authorized, .authorization(HeldAuthorization(amount: Amount(minorUnits: 1001, currency: usd), processorID: nil, expiresAt: nil))),
             code: "invalid_resolution"),
        Case(name: "mark authorized in another currency", situation: .merchantAction,
             event: resolved(.authorized, .authorization(HeldAuthorization(amount: Amount(minorUnits: 1000, currency: eur), processorID: nil, expiresAt: nil))),
             code: "invalid_resolution"),
        Case(name: "mark authorized after the processor's expiry", situation: .merchantAction,
             event: resolved(.authorized, .authorization(HeldAuthorization(amount: PaymentFixture.amount, processorID: nil, expiresAt: PaymentFixture.start))),
             code: "invalid_resolution"),
        Case(name: "mark succeeded with nothing captured at the processor", situation: .merchantAction,
             event: resolved(.succeeded, .captured(Amount(minorUnits: 0, currency: usd)), forced: true), code: "invalid_resolution"),
        Case(name: "mark succeeded what the processor never captured", situation: .merchantAction,
             event: resolved(.succeeded, .authorization(HeldAuthorization(amount: PaymentFixture.amount, processorID: nil, expiresAt: nil))),
             code: "resolution_contradicts_processor"),
        Case(name: "mark authorized what the processor never authorized", situation: .merchantAction,
             event: resolved(.authorized, .nothingHeld("it has no record of the authorization")), code: "resolution_contradicts_processor"),
        Case(name: "mark authorized what the processor captured", situation: .merchantActionAutomatic,
             event: resolved(.authorized, .captured(PaymentFixture.amount)), code: "resolution_contradicts_processor"),
        Case(name: "retry while the processor holds the money", situation: .merchantAction,
             event: resolved(.retry, .authorization(HeldAuthorization(amount: PaymentFixture.amount, processorID: nil, expiresAt: nil))),
             code: "resolution_contradicts_processor"),
        Case(name: "cancel what the processor captured", situation: .merchantAction,
             event: resolved(.canceled, .captured(PaymentFixture.amount)), code: "resolution_contradicts_processor"),
        Case(name: "any resolution when the processor could not say", situation: .merchantAction,
             event: resolved(.canceled, .notKnown("no answer within 30s")), code: "resolution_contradicts_processor"),
        Case(name: "a resolution without the processor's word", situation: .merchantAction,
             event: resolved(.retry, nil), code: "resolution_contradicts_processor"),
        Case(name: "a resolution outside requires_merchant_action", situation: .authorized,
             event: resolved(.succeeded, .captured(PaymentFixture.amount)), code: "payment_intent_unexpected_state"),
        Case(name: "a resolution of a canceled intent", situation: .canceled,
             event: resolved(.retry, .nothingHeld("it has no record of the authorization"), forced: true), code: "payment_intent_unexpected_state"),
        Case(name: "a canceled intent never changes", situation: .canceled, event: .cancelRequested(reason: .duplicate), code: "payment_intent_unexpected_state"),
        Case(name: "an expired intent cannot be captured", situation: .expired, event: .captureRequested(amount: nil), code: "payment_intent_unexpected_state"),
        Case(name: "a succeeded intent cannot be canceled", situation: .succeeded, event: .cancelRequested(reason: .fraudulent), code: "payment_intent_unexpected_state"),
        Case(name: "a timer that no longer applies", situation: .authorized, event: .timerFired(.abandonment, reference: ""), code: "payment_intent_unexpected_state"),
    ]

    @Test(arguments: cases)
    func refusedEventChangesNothing(_ testCase: Case) throws {
        var fixture = try PaymentFixture.make(testCase.situation)
        let before = fixture.machine
        #expect {
            try fixture.machine.apply(testCase.event, at: fixture.now.addingTimeInterval(1))
        } throws: { error in
            guard let rejection = error as? PaymentRejection else { return false }
            #expect(rejection.code == testCase.code, "\(rejection.message)")
            #expect(rejection.intentID == "pi_test" && !rejection.message.isEmpty)
            return true
        }
        #expect(fixture.machine == before)
    }

    @Test func captureAtTheDeadlineIsRefused() throws {
        var fixture = try PaymentFixture.make(.authorized)
        let deadline = try #require(fixture.intent.captureBefore)
        #expect(throws: PaymentRejection.self) { try fixture.machine.captureRequested(amount: nil, at: deadline) }
        #expect(fixture.intent.status == .requiresCapture)
        try fixture.step(.captureRequested(amount: nil), at: deadline.addingTimeInterval(-1))
        #expect(fixture.intent.status == .processing)
    }

    @Test func anAttemptIDIsNeverReused() throws {
        var fixture = try PaymentFixture.make(.authorizing)
        try fixture.step(.processorAnswered(.authorize(attemptID: "att_1"), .declined(.genericDecline)))
        let error = try #require(throws: PaymentRejection.self) {
            try fixture.machine.attemptOpened(PaymentFixture.opening("att_1"), at: fixture.now)
        }
        #expect(error.code == "attempt_already_exists")
    }

    @Test func theAttemptLimitStopsCardTesting() throws {
        var fixture = PaymentFixture()
        for number in 1...fixture.policy.maximumAttempts {
            try fixture.step(.attemptOpened(PaymentFixture.opening("att_\(number)")))
            try fixture.step(.processorAnswered(.authorize(attemptID: "att_\(number)"), .declined(.insufficientFunds)))
        }
        let error = try #require(throws: PaymentRejection.self) {
            try fixture.machine.attemptOpened(PaymentFixture.opening("att_more"), at: fixture.now)
        }
        #expect(error.code == "attempt_limit_reached")
        #expect(fixture.intent.attemptCount == fixture.policy.maximumAttempts)
        #expect(fixture.intent.lastError?.declineCode == .insufficientFunds)
    }

    @Test func twoRefundsThatTogetherExceedTheCaptureCannotBothPass() throws {
        var fixture = PaymentFixture(amount: Amount(minorUnits: 100, currency: PaymentFixture.usd))
        try fixture.step(.attemptOpened(PaymentFixture.opening("att_1", amount: fixture.intent.amount)))
        try fixture.step(.processorAnswered(.authorize(attemptID: "att_1"), PaymentFixture.approval(fixture.intent.amount)))
        try fixture.step(.captureRequested(amount: nil))
        try fixture.step(.processorAnswered(.capture(attemptID: "att_1"), PaymentFixture.approval(fixture.intent.amount)))
        try fixture.step(.refundRequested(refundID: "re_a", amount: 60, reason: nil))
        let error = try #require(throws: PaymentRejection.self) {
            try fixture.machine.refundRequested(refundID: "re_b", amount: 60, reason: nil, at: fixture.now)
        }
        #expect(error.code == "refund_exceeds_captured_amount")
        #expect(error.message.contains("0.40 USD"))
        // Once the first refund fails, its amount is refundable again.
        try fixture.step(.processorAnswered(.refund(refundID: "re_a"), .declined(.refundFailed)))
        try fixture.step(.refundRequested(refundID: "re_b", amount: 60, reason: nil))
        #expect(fixture.intent.amountRefundPending == 60)
    }
}
