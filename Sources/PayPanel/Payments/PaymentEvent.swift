import Foundation

/// Something that happened to an intent: the input of `PaymentStateMachine`. Each accepted
/// event becomes one row of the intent's history (`events`), numbered by the new version.
///
/// Processor answers are passed as the processor gave them (`ProcessorOutcome`), tagged with
/// the call they answer, so the executor needs no interpretation of its own.
package enum PaymentEvent: Sendable, Equatable {
    /// A card or an Apple Pay token was submitted: a new attempt starts authorizing.
    case attemptOpened(AttemptOpening)
    /// The processor answered a call (authorize, challenge completion, capture, void, refund).
    case processorAnswered(ProcessorCall, ProcessorOutcome)
    /// The cardholder passed the 3-D Secure challenge of `attemptID`.
    case challengePassed(attemptID: String)
    /// The cardholder failed the challenge.
    case challengeFailed(attemptID: String)
    /// The cardholder closed the challenge without finishing it.
    case challengeAbandoned(attemptID: String)
    /// The merchant captures `amount` minor units (nil: everything capturable).
    case captureRequested(amount: Int64?)
    /// The merchant cancels: before authorization it is final; after, the authorization is voided.
    case cancelRequested(reason: CancellationReason)
    /// The merchant refunds `amount` minor units of a captured intent as refund `refundID`.
    case refundRequested(refundID: String, amount: Int64, reason: RefundReason?)
    /// A lookup found the call at the processor, with this outcome.
    case reconciliationFound(ProcessorCall, ProcessorOutcome)
    /// A lookup says the processor never received the call. After the grace period that
    /// means it failed; before, the lookup is repeated.
    case reconciliationNotFound(ProcessorCall)
    /// The lookup itself got no answer; it is repeated until the lookups run out.
    case reconciliationUnavailable(ProcessorCall, reason: String)
    /// The executor gives up reconciling the call: an operator must decide.
    case reconciliationExhausted(ProcessorCall)
    /// A timer of the intent came due.
    case timerFired(PaymentTimer.Kind, reference: String)
    /// The device waiting on attempt `attemptID`'s Apple Pay sheet is about to be answered while
    /// the outcome is still open (an unknown answer came back before the deadline): the answer
    /// it gets, failure, is recorded first, so a later approval is reversed rather than kept.
    case sheetAnswerDue(attemptID: String)
    /// An operator resolved an intent (or refund) that requires merchant action: what they
    /// decided, and who, why, whether they overrode the processor's ledger and what it said.
    case operatorResolved(OperatorResolution, OperatorRecord)

    /// The snake_case name stored in the history: `attempt_opened`, `authorize_approved`, …
    package var name: String {
        switch self {
        case .attemptOpened: "attempt_opened"
        case .processorAnswered(let call, let outcome): "\(call.operationName)_\(outcome.eventSuffix)"
        case .challengePassed: "challenge_passed"
        case .challengeFailed: "challenge_failed"
        case .challengeAbandoned: "challenge_abandoned"
        case .captureRequested: "capture_requested"
        case .cancelRequested: "cancel_requested"
        case .refundRequested: "refund_requested"
        case .reconciliationFound(let call, let outcome): "reconciled_\(call.operationName)_\(outcome.eventSuffix)"
        case .reconciliationNotFound(let call): "reconciled_\(call.operationName)_not_found"
        case .reconciliationUnavailable(let call, _): "reconciliation_\(call.operationName)_unavailable"
        case .reconciliationExhausted(let call): "reconciliation_\(call.operationName)_exhausted"
        case .timerFired(let kind, _): "timer_\(kind.rawValue)"
        case .sheetAnswerDue: "sheet_answer_due"
        case .operatorResolved: "operator_resolved"
        }
    }
}

/// A new attempt: what the executor knows when a card or token is submitted. The attempt id
/// comes from the caller's random source (the machine makes no ids).
package struct AttemptOpening: Sendable, Equatable {
    /// `att_…`: the processor reference and idempotency key of the authorization.
    package let attemptID: String
    package let source: AttemptSource
    package let card: CardSummary
    /// The amount the card or token is for; it must equal the intent's amount and currency.
    package let amount: Amount
    /// True when an Apple Pay sheet is waiting for the answer (it must get one within 30 s).
    package let answersPaymentSheet: Bool

    /// A new attempt `attemptID` paying `amount` with `card`.
    package init(attemptID: String, source: AttemptSource, card: CardSummary, amount: Amount, answersPaymentSheet: Bool) {
        self.attemptID = attemptID
        self.source = source
        self.card = card
        self.amount = amount
        self.answersPaymentSheet = answersPaymentSheet
    }
}

/// A processor call, named by the reference it was made with.
public enum ProcessorCall: Sendable, Hashable, CustomStringConvertible {
    case authorize(attemptID: String)
    case completeChallenge(attemptID: String)
    case capture(attemptID: String)
    case void(attemptID: String)
    case refund(refundID: String)

    /// The reference the processor knows the call by (the attempt id, or the refund id).
    public var reference: String {
        switch self {
        case .authorize(let id), .completeChallenge(let id), .capture(let id), .void(let id), .refund(let id): id
        }
    }

    /// The lookup operation (`completeChallenge` is looked up as the authorization it finishes).
    public var operation: ProcessorOperation {
        switch self {
        case .authorize, .completeChallenge: .authorize
        case .capture: .capture
        case .void: .void
        case .refund: .refund
        }
    }

    /// `authorize`, `complete_challenge`, `capture`, `void`, `refund`.
    public var operationName: String {
        switch self {
        case .authorize: "authorize"
        case .completeChallenge: "complete_challenge"
        case .capture: "capture"
        case .void: "void"
        case .refund: "refund"
        }
    }

    public var description: String { "\(operationName) \(reference)" }
}

extension ProcessorOutcome {
    /// `approved`, `declined`, `challenge_required`, `pending`, `not_processed`, `unknown`.
    public var eventSuffix: String {
        switch self {
        case .approved: "approved"
        case .declined: "declined"
        case .challengeRequired: "challenge_required"
        case .pending: "pending"
        case .notProcessed: "not_processed"
        case .unknown: "unknown"
        }
    }
}

/// A `PaymentEvent` that concerns the refund ledger, which a succeeded intent keeps after it
/// is final: a refund request, and the processor's, the lookups' and the operator's word on one
/// refund.
enum RefundEvent: Equatable {
    case requested(refundID: String, amount: Int64, reason: RefundReason?)
    case answered(refundID: String, ProcessorOutcome)
    case lookupFound(refundID: String, ProcessorOutcome)
    case lookupNotFound(refundID: String)
    case lookupInconclusive(refundID: String)
    case reconciliationExhausted(refundID: String)
    case resolved(refundID: String, succeeded: Bool)

    /// The refund event `event` is, or nil when it concerns the intent's own payment.
    init?(_ event: PaymentEvent) {
        switch event {
        case .refundRequested(let refundID, let amount, let reason): self = .requested(refundID: refundID, amount: amount, reason: reason)
        case .processorAnswered(.refund(let refundID), let outcome): self = .answered(refundID: refundID, outcome)
        case .reconciliationFound(.refund(let refundID), let outcome): self = .lookupFound(refundID: refundID, outcome)
        case .reconciliationNotFound(.refund(let refundID)): self = .lookupNotFound(refundID: refundID)
        case .reconciliationUnavailable(.refund(let refundID), _): self = .lookupInconclusive(refundID: refundID)
        case .reconciliationExhausted(.refund(let refundID)): self = .reconciliationExhausted(refundID: refundID)
        case .operatorResolved(.refund(let refundID, let succeeded), _): self = .resolved(refundID: refundID, succeeded: succeeded)
        default: return nil
        }
    }
}

extension PaymentEvent {
    /// Events that concern the refund ledger, which a succeeded intent keeps.
    var concernsRefunds: Bool { RefundEvent(self) != nil }
}
