import Foundation

/// What the state machine asks for after an event. The machine performs nothing itself.
///
/// Two kinds: effects the ledger writes in the same transaction as the transition
/// (`scheduleTimer`, `cancelTimer`, `emitOutbox`), and work for the executor
/// (`PaymentService`) to run after the commit — processor calls and the answer to the Apple
/// Pay sheet. `isExecutorWork` tells them apart.
package enum PaymentAction: Sendable, Equatable {
    /// Authorize the attempt at the processor (reference and idempotency key: the attempt id).
    /// Feed the answer back as `.processorAnswered(.authorize(attemptID:), outcome)`.
    case callProcessorAuthorize(attemptID: String, amount: Amount)
    /// Tell the processor the challenge was passed; feed the answer back as
    /// `.processorAnswered(.completeChallenge(attemptID:), outcome)`.
    case callProcessorCompleteChallenge(attemptID: String)
    /// Capture `amount`; answer: `.processorAnswered(.capture(attemptID:), outcome)`.
    case callProcessorCapture(attemptID: String, amount: Amount)
    /// Void the authorization. For `.cancel` and `.reversal` feed the answer back as
    /// `.processorAnswered(.void(attemptID:), outcome)`; `.authorizationExpired` is best effort
    /// (the intent is already `expired`, so its answer changes nothing).
    case voidAuthorization(attemptID: String, reason: VoidReason)
    /// Refund `amount` of the attempt's capture as `refundID` (the processor's idempotency key);
    /// answer: `.processorAnswered(.refund(refundID:), outcome)`.
    case callProcessorRefund(refundID: String, attemptID: String, amount: Amount)
    /// Answer the Apple Pay sheet waiting on the attempt.
    case answerSheet(attemptID: String, result: SheetAnswer)
    /// Write (or move) the timer; the ledger does it in the transition's transaction.
    case scheduleTimer(PaymentTimer)
    /// Delete the timer; the ledger does it in the transition's transaction.
    case cancelTimer(PaymentTimer.Kind, reference: String)
    /// Write an outbox message announcing the change; the ledger does it in the same
    /// transaction, with the intent (and refund) as they are after the transition.
    case emitOutbox(OutboxTopic, refundID: String?)

    /// True for the actions the executor runs after the commit.
    package var isExecutorWork: Bool {
        switch self {
        case .callProcessorAuthorize, .callProcessorCompleteChallenge, .callProcessorCapture, .voidAuthorization,
            .callProcessorRefund, .answerSheet:
            true
        case .scheduleTimer, .cancelTimer, .emitOutbox:
            false
        }
    }
}

/// Why an authorization is voided.
package enum VoidReason: String, Sendable, CaseIterable {
    /// The merchant canceled (outcome tracked: the intent waits in `processing`).
    case cancel
    /// An approval arrived after the sheet had been answered with failure (outcome tracked).
    case reversal
    /// The authorization lapsed; the intent is `expired` already (best effort, not tracked).
    case authorizationExpired = "authorization_expired"
}

/// Work due at a time, kept in the `timers` table. One timer per (intent, kind, reference):
/// scheduling again moves it.
public struct PaymentTimer: Sendable, Equatable {
    /// What the timer does when it fires.
    public enum Kind: String, Sendable, CaseIterable {
        /// Nobody paid: cancel the intent (reference "").
        case abandonment
        /// The authorization is about to lapse: expire the intent (reference: the attempt).
        case authorizationExpiry = "authorization_expiry"
        /// The Apple Pay sheet must be answered now (reference: the attempt).
        case sheetDeadline = "sheet_deadline"
        /// The 3-D Secure challenge took too long (reference: the attempt).
        case challengeExpiry = "challenge_expiry"
        /// Look the call up at the processor (reference: the attempt or the refund). Not fed to
        /// the machine as `timerFired`: the executor looks up and feeds the lookup's result,
        /// which moves or deletes the timer.
        case reconciliation

        /// True when the timer is handled by `PaymentStateMachine.timerFired`.
        public var isStateMachineTimer: Bool { self != .reconciliation }
    }

    public let kind: Kind
    /// The attempt or refund id the timer is about, or "" for the intent itself.
    public let reference: String
    public let dueAt: Date

    /// A timer of `kind` about `reference`, due at `dueAt`.
    public init(kind: Kind, reference: String, dueAt: Date) {
        self.kind = kind
        self.reference = reference
        self.dueAt = dueAt
    }
}

/// The topics of outbox messages (Stripe webhook names where Stripe has one).
package enum OutboxTopic: String, Sendable, CaseIterable {
    case intentCreated = "payment_intent.created"
    case intentProcessing = "payment_intent.processing"
    case intentRequiresAction = "payment_intent.requires_action"
    case intentAmountCapturableUpdated = "payment_intent.amount_capturable_updated"
    case intentRequiresMerchantAction = "payment_intent.requires_merchant_action"
    case intentPaymentFailed = "payment_intent.payment_failed"
    case intentSucceeded = "payment_intent.succeeded"
    case intentCanceled = "payment_intent.canceled"
    case intentExpired = "payment_intent.expired"
    case refundCreated = "refund.created"
    case refundSucceeded = "refund.succeeded"
    case refundFailed = "refund.failed"
    case refundRequiresMerchantAction = "refund.requires_merchant_action"
}
