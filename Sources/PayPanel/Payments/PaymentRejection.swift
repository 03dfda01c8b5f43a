import Foundation

/// An event the state machine refused. Nothing changed: not the intent, not the history.
/// The executor decides what to tell the caller; a stale processor answer (one the intent has
/// already moved past) is a rejection too, never a crash.
package struct PaymentRejection: PayPanelError, Equatable {
    /// Why the event was refused.
    package enum Reason: Sendable, Equatable {
        /// The intent is canceled, expired or succeeded (refunds aside) and never changes.
        case terminal(PaymentStatus)
        /// The event does not apply in this status.
        case notAllowed(event: String, status: PaymentStatus)
        /// A processor call is in flight; wait for its outcome.
        case operationInFlight(ProcessorCall)
        /// The answer is for a call the intent is not waiting on (late, duplicated or foreign).
        case callNotInFlight(ProcessorCall)
        /// The processor gave an answer that makes no sense for the call (e.g. a challenge for a capture).
        case unexpectedOutcome(ProcessorCall, outcome: String)
        /// The attempt is not the intent's current one.
        case unknownAttempt(String)
        /// The attempt id is already taken.
        case duplicateAttempt(String)
        case attemptLimitReached(limit: Int)
        /// The card or token is for another amount or currency than the intent.
        case attemptAmountMismatch(expected: Amount, actual: Amount)
        case captureAmountInvalid(requested: Int64, capturable: Int64, currency: Currency)
        case authorizationExpired(captureBefore: Date)
        case refundAmountInvalid(requested: Int64, currency: Currency)
        case refundExceedsRemainder(requested: Int64, refundable: Int64, currency: Currency)
        case unknownRefund(String)
        case duplicateRefund(String)
        /// The refund is final (or not awaiting this), so the answer is stale.
        case refundNotPending(String)
        case invalidResolution(String)
        /// The processor's ledger contradicts the operator's resolution (`processor` says
        /// what it holds; `consistent` are the resolutions it allows), and it was not forced.
        case resolutionContradictsProcessor(IntentResolution, processor: String, consistent: [IntentResolution])
        /// The timer no longer applies (the intent moved on); it is discarded.
        case timerNotApplicable(PaymentTimer.Kind, status: PaymentStatus)
    }

    package let intentID: String
    package let reason: Reason

    /// The rejection of an event on `intentID` for `reason`.
    package init(intentID: String, reason: Reason) {
        self.intentID = intentID
        self.reason = reason
    }

    package var code: String {
        switch reason {
        case .terminal, .notAllowed, .timerNotApplicable: "payment_intent_unexpected_state"
        case .operationInFlight: "payment_intent_operation_in_flight"
        case .callNotInFlight, .unexpectedOutcome: "processor_answer_not_expected"
        case .unknownAttempt: "attempt_not_found"
        case .duplicateAttempt: "attempt_already_exists"
        case .attemptLimitReached: "attempt_limit_reached"
        case .attemptAmountMismatch: "amount_mismatch"
        case .captureAmountInvalid: "amount_too_large"
        case .authorizationExpired: "charge_expired_for_capture"
        case .refundAmountInvalid: "refund_amount_invalid"
        case .refundExceedsRemainder: "refund_exceeds_captured_amount"
        case .unknownRefund: "refund_not_found"
        case .duplicateRefund: "refund_already_exists"
        case .refundNotPending: "refund_not_pending"
        case .invalidResolution: "invalid_resolution"
        case .resolutionContradictsProcessor: "resolution_contradicts_processor"
        }
    }

    package var message: String {
        let intent = "payment intent \(intentID)"
        switch reason {
        case .terminal(let status):
            return "\(intent) is \(status) and can no longer change: create a new payment intent"
        case .notAllowed(let event, let status):
            return "\(intent) is \(status): \(event.replacingOccurrences(of: "_", with: " ")) is not possible in that state"
        case .operationInFlight(let call):
            return "\(intent) is waiting for the processor (\(call)): wait for the outcome, or run reconciliation"
        case .callNotInFlight(let call):
            return "\(intent) is not waiting for an answer to \(call): the answer is late or duplicated and was ignored"
        case .unexpectedOutcome(let call, let outcome):
            return "the processor answered \(call) for \(intent) with '\(outcome)', which makes no sense for that call: reconcile it"
        case .unknownAttempt(let attempt):
            return "\(intent) has no current attempt \(attempt): use the id from the latest attempt"
        case .duplicateAttempt(let attempt):
            return "attempt \(attempt) already exists on \(intent): every card or token needs a new attempt id"
        case .attemptLimitReached(let limit):
            return "\(intent) already had \(limit) attempts, the most allowed: create a new payment intent"
        case .attemptAmountMismatch(let expected, let actual):
            return "the payment is for \(actual) but \(intent) is for \(expected): the amounts and currencies must match"
        case .captureAmountInvalid(let requested, let capturable, let currency):
            return "cannot capture \(Amount(minorUnits: requested, currency: currency)) of \(intent): the amount must be above zero and at most the capturable \(Amount(minorUnits: capturable, currency: currency))"
        case .authorizationExpired(let captureBefore):
            return "the authorization of \(intent) could only be captured before \(Timestamp.format(captureBefore)): it has lapsed"
        case .refundAmountInvalid(let requested, let currency):
            return "cannot refund \(Amount(minorUnits: requested, currency: currency)) of \(intent): a refund must be above zero"
        case .refundExceedsRemainder(let requested, let refundable, let currency):
            return "cannot refund \(Amount(minorUnits: requested, currency: currency)) of \(intent): only \(Amount(minorUnits: refundable, currency: currency)) of the captured amount is not refunded or being refunded"
        case .unknownRefund(let refund):
            return "\(intent) has no refund \(refund): check the refund id"
        case .duplicateRefund(let refund):
            return "refund \(refund) already exists on \(intent): every refund needs a new id"
        case .refundNotPending(let refund):
            return "refund \(refund) of \(intent) is not waiting for this answer: it is late or duplicated and was ignored"
        case .invalidResolution(let why):
            return "cannot resolve \(intent) that way: \(why)"
        case .resolutionContradictsProcessor(let resolution, let processor, let consistent):
            let instead = consistent.isEmpty
                ? "ask again once the processor answers"
                : "resolve it as \(consistent.map(\.rawValue).joined(separator: " or ")) instead"
            return "cannot resolve \(intent) as \(resolution.rawValue): \(processor); \(instead), or force the resolution to override the processor's ledger"
        case .timerNotApplicable(let kind, let status):
            return "the \(kind.rawValue.replacingOccurrences(of: "_", with: " ")) timer of \(intent) no longer applies (the intent is \(status))"
        }
    }
}
