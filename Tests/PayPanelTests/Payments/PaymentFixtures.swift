import Foundation
import PayPanel
import Testing

typealias Situation = PaymentTransitionTable.Situation
typealias TableEvent = PaymentTransitionTable.Event

/// A machine in a known situation, reached through real events from creation, with the time
/// of its last event. Every step checks the invariants.
struct PaymentFixture {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18T11:06:40Z
    static let usd = try! Currency(code: "USD")  // a constant, not input
    static let amount = Amount(minorUnits: 1000, currency: usd)

    var machine: PaymentStateMachine
    var now: Date

    init(captureMethod: CaptureMethod = .manual, policy: PaymentPolicy = .standard, amount: Amount = PaymentFixture.amount) {
        machine = PaymentStateMachine.create(
            id: "pi_test", amount: amount, captureMethod: captureMethod, orderReference: nil, at: PaymentFixture.start,
            policy: policy
        ).machine
        now = PaymentFixture.start
    }

    var intent: PaymentIntent { machine.intent }
    var policy: PaymentPolicy { machine.policy }

    /// Applies `event` `seconds` after the last one, expecting it to be accepted and sound.
    @discardableResult
    mutating func step(_ event: PaymentEvent, after seconds: TimeInterval = 1) throws -> [PaymentAction] {
        try step(event, at: now.addingTimeInterval(seconds))
    }

    @discardableResult
    mutating func step(_ event: PaymentEvent, at time: Date) throws -> [PaymentAction] {
        let before = machine
        let actions = try machine.apply(event, at: time)
        now = time
        let broken = PaymentInvariants.violations(from: before, to: machine)
        #expect(broken.isEmpty, "after \(event.name): \(broken)")
        return actions
    }

    /// The call the intent waits on: the one in flight, a pending refund, or else the current
    /// attempt's authorization (which nothing waits on, so answers to it are rejected).
    var awaitedCall: ProcessorCall {
        if let operation = intent.inFlight { return operation.call }
        if let refund = machine.refunds.first(where: { $0.status == .pending }) { return .refund(refundID: refund.id) }
        return .authorize(attemptID: intent.currentAttemptID ?? "att_none")
    }

    /// The amount the awaited call moves.
    var awaitedAmount: Amount {
        switch awaitedCall {
        case .refund(let id): machine.refunds.first { $0.id == id }?.amount ?? intent.amount
        default: Amount(minorUnits: intent.inFlight?.amount ?? intent.amount.minorUnits, currency: intent.currency)
        }
    }

    static func card(_ last4: String = "4242") -> CardSummary {
        CardSummary(network: .visa, last4: last4, expiryMonth: 12, expiryYear: 2030)!
    }

    static func opening(_ id: String, sheet: Bool = false, amount: Amount = PaymentFixture.amount) -> AttemptOpening {
        AttemptOpening(attemptID: id, source: sheet ? .applePay : .card, card: card(), amount: amount, answersPaymentSheet: sheet)
    }

    /// An operator's record: a note, a name, whether it was forced, what the processor held.
    static func record(_ holding: ProcessorHolding? = nil, forced: Bool = false, note: String = "checked the processor's dashboard")
        -> OperatorRecord
    {
        try! OperatorRecord(note: note, actor: "alice", forced: forced, processor: holding)  // constant, valid text
    }

    /// The intent resolved as `resolution`, with the processor holding `holding`.
    func resolved(_ resolution: IntentResolution, _ holding: ProcessorHolding?, forced: Bool = false) -> PaymentEvent {
        .operatorResolved(.intent(resolution), PaymentFixture.record(holding, forced: forced))
    }

    /// The authorization the processor holds for the current attempt: the intent's amount, for
    /// 7 days from the fixture's start.
    var heldAuthorization: HeldAuthorization {
        HeldAuthorization(amount: intent.amount, processorID: "auth_test", expiresAt: PaymentFixture.start.addingTimeInterval(7 * 86_400))
    }

    static func approval(_ amount: Amount, at time: Date? = nil) -> ProcessorOutcome {
        .approved(ProcessorApproval(amount: amount, processorID: "ch_test", expiresAt: nil))
    }

    /// A fixture in `situation`.
    static func make(_ situation: Situation) throws -> PaymentFixture {
        switch situation {
        case .new:
            return PaymentFixture()
        case .challenge:
            var fixture = try make(.authorizing)
            try fixture.step(.processorAnswered(fixture.awaitedCall, .challengeRequired))
            return fixture
        case .authorizing:
            var fixture = PaymentFixture()
            try fixture.step(.attemptOpened(opening("att_1")))
            return fixture
        case .authorizingAutomatic:
            var fixture = PaymentFixture(captureMethod: .automatic)
            try fixture.step(.attemptOpened(opening("att_1")))
            return fixture
        case .authorizingWithSheet:
            var fixture = PaymentFixture()
            try fixture.step(.attemptOpened(opening("att_1", sheet: true)))
            return fixture
        case .authorizingSheetFailed:
            var fixture = try make(.authorizingWithSheet)
            try fixture.step(.timerFired(.sheetDeadline, reference: "att_1"), after: fixture.policy.sheetAnswerDeadline)
            return fixture
        case .completingChallenge:
            var fixture = try make(.challenge)
            try fixture.step(.challengePassed(attemptID: "att_1"))
            return fixture
        case .capturing:
            var fixture = try make(.authorized)
            try fixture.step(.captureRequested(amount: nil))
            return fixture
        case .voiding:
            var fixture = try make(.authorized)
            try fixture.step(.cancelRequested(reason: .requestedByCustomer))
            return fixture
        case .reversing:
            var fixture = try make(.authorizingSheetFailed)
            try fixture.step(.processorAnswered(fixture.awaitedCall, approval(amount)))
            return fixture
        case .authorized:
            var fixture = try make(.authorizing)
            try fixture.step(.processorAnswered(fixture.awaitedCall, approval(amount)))
            return fixture
        case .merchantAction:
            var fixture = try make(.authorizing)
            try fixture.step(.processorAnswered(fixture.awaitedCall, approval(Amount(minorUnits: 999, currency: usd))))
            return fixture
        case .merchantActionAutomatic:
            var fixture = try make(.authorizingAutomatic)
            try fixture.step(.reconciliationExhausted(fixture.awaitedCall))
            return fixture
        case .succeeded:
            var fixture = try make(.capturing)
            try fixture.step(.processorAnswered(fixture.awaitedCall, approval(amount)))
            return fixture
        case .refunding:
            var fixture = try make(.succeeded)
            try fixture.step(.refundRequested(refundID: "re_1", amount: 400, reason: .requestedByCustomer))
            return fixture
        case .refundNeedsMerchant:
            var fixture = try make(.refunding)
            try fixture.step(.reconciliationExhausted(.refund(refundID: "re_1")))
            return fixture
        case .canceled:
            var fixture = PaymentFixture()
            try fixture.step(.cancelRequested(reason: .requestedByCustomer))
            return fixture
        case .expired:
            var fixture = try make(.authorized)
            try fixture.step(.timerFired(.authorizationExpiry, reference: "att_1"), at: fixture.intent.captureBefore!)
            return fixture
        }
    }

    /// The table event as a concrete event for this fixture: setup events to apply first
    /// (ignored when refused), the event, and when it happens.
    func concrete(_ event: TableEvent) -> (setup: [PaymentEvent], event: PaymentEvent, at: Date) {
        let call = awaitedCall
        let soon = now.addingTimeInterval(1)
        let attemptID = intent.currentAttemptID ?? "att_none"
        let other = Amount(minorUnits: awaitedAmount.minorUnits - 1, currency: intent.currency)
        let refundID = machine.refunds.first { $0.status == .requiresMerchantAction }?.id ?? machine.refunds.first?.id ?? "re_none"
        switch event {
        case .submit: return ([], .attemptOpened(PaymentFixture.opening("att_new", amount: intent.amount)), soon)
        case .approved: return ([], .processorAnswered(call, PaymentFixture.approval(awaitedAmount)), soon)
        case .approvedOtherAmount: return ([], .processorAnswered(call, PaymentFixture.approval(other)), soon)
        case .declined: return ([], .processorAnswered(call, .declined(.insufficientFunds)), soon)
        case .challengeRequired: return ([], .processorAnswered(call, .challengeRequired), soon)
        case .pending: return ([], .processorAnswered(call, .pending), soon)
        case .notProcessedRetry: return ([], .processorAnswered(call, .notProcessed(reason: "HTTP 503")), soon)
        case .notProcessedFinal:
            let refused = PaymentEvent.processorAnswered(call, .notProcessed(reason: "HTTP 503"))
            return (Array(repeating: refused, count: policy.maximumProcessorRetries), refused, soon)
        case .unknown: return ([], .processorAnswered(call, .unknown(reason: "timeout")), soon)
        case .challengePassed: return ([], .challengePassed(attemptID: attemptID), soon)
        case .challengeFailed: return ([], .challengeFailed(attemptID: attemptID), soon)
        case .challengeAbandoned: return ([], .challengeAbandoned(attemptID: attemptID), soon)
        case .capture: return ([], .captureRequested(amount: nil), soon)
        case .cancel: return ([], .cancelRequested(reason: .requestedByCustomer), soon)
        case .refund: return ([], .refundRequested(refundID: "re_new", amount: 100, reason: nil), soon)
        case .lookupApproved: return ([], .reconciliationFound(call, PaymentFixture.approval(awaitedAmount)), soon)
        case .lookupDeclined: return ([], .reconciliationFound(call, .declined(.doNotHonor)), soon)
        case .lookupNotFoundEarly: return ([], .reconciliationNotFound(call), soon)
        case .lookupNotFoundLate: return ([], .reconciliationNotFound(call), now.addingTimeInterval(policy.reconciliationGrace + 1))
        case .lookupUnavailable: return ([], .reconciliationUnavailable(call, reason: "timeout"), soon)
        case .reconciliationExhausted: return ([], .reconciliationExhausted(call), soon)
        case .abandonmentTimer: return ([], .timerFired(.abandonment, reference: ""), now.addingTimeInterval(policy.abandonAfter))
        case .challengeExpiryTimer:
            return ([], .timerFired(.challengeExpiry, reference: attemptID), now.addingTimeInterval(policy.challengeTimeout))
        case .sheetAnswerDue: return ([], .sheetAnswerDue(attemptID: attemptID), soon)
        case .sheetDeadlineTimer:
            return ([], .timerFired(.sheetDeadline, reference: attemptID), now.addingTimeInterval(policy.sheetAnswerDeadline + 1))
        case .authorizationExpiryTimer:
            return ([], .timerFired(.authorizationExpiry, reference: attemptID), intent.captureBefore ?? soon)
        case .resolveRetry: return ([], resolved(.retry, .nothingHeld("it has no record of the authorization")), soon)
        case .resolveCanceled: return ([], resolved(.canceled, .voided), soon)
        case .resolveCanceledVoiding: return ([], resolved(.canceled, .authorization(heldAuthorization)), soon)
        case .resolveAuthorized: return ([], resolved(.authorized, .authorization(heldAuthorization)), soon)
        case .resolveSucceeded: return ([], resolved(.succeeded, .captured(intent.amount)), soon)
        case .resolveSucceededForced:
            return ([], resolved(.succeeded, .nothingHeld("it has no record of the authorization"), forced: true), soon)
        case .resolveRefundSucceeded: return ([], .operatorResolved(.refund(refundID: refundID, succeeded: true), PaymentFixture.record()), soon)
        case .resolveRefundFailed: return ([], .operatorResolved(.refund(refundID: refundID, succeeded: false), PaymentFixture.record()), soon)
        }
    }
}
