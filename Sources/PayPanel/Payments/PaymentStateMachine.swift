import Foundation

/// The payment intent's state machine (DESIGN §4, docs/state-machine.md): pure — no I/O, no
/// clock, no randomness. The time comes with each event, ids come inside the events.
///
/// One `mutating func` per event returns the actions to take; an event that does not apply
/// throws a `PaymentRejection` and leaves the machine exactly as it was. The owner (the
/// ledger inside one write transaction, then `PaymentService` for the processor calls)
/// executes the actions:
///
/// ```swift
/// var machine = PaymentStateMachine(intent: intent, attempts: attempts, refunds: refunds)
/// let actions = try machine.processorAnswered(.authorize(attemptID: id), outcome, at: now)
/// ```
///
/// Two jobs share the one version of the intent: its own payment (attempts, authorization,
/// capture or void, their lookups, timers, an operator's resolution), in the extensions of
/// this type, and its refund ledger, in `RefundBook`. `apply` sorts each event to one of them.
/// Timers, outbox messages and answers to the Apple Pay sheet are derived from the change of
/// state after every event (`deriveEffects`), so no transition can forget them.
package struct PaymentStateMachine: Sendable, Equatable {
    package internal(set) var intent: PaymentIntent
    /// Every attempt of the intent, oldest first.
    package internal(set) var attempts: [Attempt]
    /// Every refund of the intent, oldest first.
    package internal(set) var refunds: [Refund]
    package let policy: PaymentPolicy

    /// A machine for a stored intent.
    package init(intent: PaymentIntent, attempts: [Attempt] = [], refunds: [Refund] = [], policy: PaymentPolicy = .standard) {
        self.intent = intent
        self.attempts = attempts
        self.refunds = refunds
        self.policy = policy
    }

    /// A new intent waiting for a payment method (version 1), and the effects of its creation:
    /// the abandonment timer and the `payment_intent.created` message.
    package static func create(
        id: String, amount: Amount, captureMethod: CaptureMethod, orderReference: String?, metadata: Metadata = .empty,
        at now: Date, policy: PaymentPolicy = .standard
    ) -> (machine: PaymentStateMachine, actions: [PaymentAction]) {
        let intent = PaymentIntent(
            id: id, amount: amount, captureMethod: captureMethod, orderReference: orderReference,
            status: .requiresPaymentMethod, version: 1, createdAt: now, updatedAt: now, metadata: metadata)
        let machine = PaymentStateMachine(intent: intent, policy: policy)
        let actions: [PaymentAction] = [
            .scheduleTimer(PaymentTimer(kind: .abandonment, reference: "", dueAt: now.addingTimeInterval(policy.abandonAfter))),
            .emitOutbox(.intentCreated, refundID: nil),
        ]
        return (machine, actions)
    }

    // MARK: - Events

    /// Applies `event` at `now`: the dispatcher behind the per-event functions, and what the
    /// ledger calls. On success the version is one higher; on rejection nothing changed.
    package mutating func apply(_ event: PaymentEvent, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        var next = self
        try next.rejectIfFinal(event)
        let work: [PaymentAction]
        if let refundEvent = RefundEvent(event) {
            work = try next.applyToRefunds(refundEvent, at: now)
        } else {
            work = try next.applyToPayment(event, at: now)
        }
        let effects = next.deriveEffects(from: self, at: now)
        next.intent.version += 1
        next.intent.updatedAt = now
        self = next
        return effects.sheetAnswers + work + effects.persisted
    }

    /// An event of the intent's own payment: its attempts, their authorization, capture or
    /// void, the lookups of their unknown outcomes, timers and the operator's resolution.
    private mutating func applyToPayment(_ event: PaymentEvent, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        let work: [PaymentAction]
        switch event {
        case .attemptOpened(let opening): work = try handleAttemptOpened(opening, at: now)
        case .processorAnswered(let call, let outcome): work = try handleAnswer(call, outcome, at: now)
        case .challengePassed(let attemptID): work = try handleChallengePassed(attemptID, at: now)
        case .challengeFailed(let attemptID):
            work = try handleChallengeEnded(attemptID, .authenticationFailed, "the cardholder failed the 3-D Secure challenge", at: now)
        case .challengeAbandoned(let attemptID):
            work = try handleChallengeEnded(attemptID, .authenticationAbandoned, "the cardholder closed the 3-D Secure challenge", at: now)
        case .captureRequested(let amount): work = try handleCaptureRequested(amount, at: now)
        case .cancelRequested(let reason): work = try handleCancelRequested(reason, at: now)
        case .reconciliationFound(let call, let outcome): work = try handleLookupFound(call, outcome, at: now)
        case .reconciliationNotFound(let call): work = try handleLookupNotFound(call, at: now)
        case .reconciliationUnavailable(let call, _): work = try handleInconclusiveLookup(call, at: now)
        case .reconciliationExhausted(let call): work = try handleReconciliationExhausted(call, at: now)
        case .timerFired(let kind, let reference): work = try handleTimer(kind, reference: reference, at: now)
        case .sheetAnswerDue(let attemptID): work = try handleSheetAnswerDue(attemptID, at: now)
        case .operatorResolved(.intent(let choice), let record): work = try resolveIntent(choice, record, at: now)
        case .refundRequested, .operatorResolved(.refund, _):
            preconditionFailure("\(event.name) is a refund event: apply(_:at:) gives it to the refund book")
        }
        return work
    }

    /// An event of the refund ledger, run by a `RefundBook` on the intent's refunds and totals.
    private mutating func applyToRefunds(_ event: RefundEvent, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        var book = RefundBook(
            refunds: refunds, refunded: intent.amountRefunded, reserved: intent.amountRefundPending, intentID: intent.id,
            currency: intent.currency, captured: intent.amountCaptured, policy: policy)
        let work: [PaymentAction]
        switch event {
        case .requested(let refundID, let amount, let reason):
            // New refunds are for a succeeded intent only, against its captured attempt.
            guard intent.status == .succeeded, let attemptID = intent.currentAttemptID else { throw notAllowed("refund_requested") }
            work = try book.request(refundID, amount: amount, reason: reason, attemptID: attemptID, at: now)
        case .answered(let refundID, let outcome): work = try book.answer(refundID, outcome, at: now)
        case .lookupFound(let refundID, let outcome): work = try book.lookupFound(refundID, outcome, at: now)
        case .lookupNotFound(let refundID): work = try book.resendAfterLookup(refundID, at: now)
        case .lookupInconclusive(let refundID): work = try book.lookupInconclusive(refundID, at: now)
        case .reconciliationExhausted(let refundID): work = try book.reconciliationExhausted(refundID, at: now)
        case .resolved(let refundID, let succeeded):
            guard intent.status == .succeeded else { throw notAllowed("operator_resolved") }
            work = try book.resolve(refundID, succeeded: succeeded, at: now)
        }
        refunds = book.refunds
        intent.amountRefunded = book.refunded
        intent.amountRefundPending = book.reserved
        return work
    }

    /// A card or an Apple Pay token was submitted (`requires_payment_method` → `processing`).
    package mutating func attemptOpened(_ opening: AttemptOpening, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try apply(.attemptOpened(opening), at: now)
    }

    /// The processor answered `call` with `outcome`.
    package mutating func processorAnswered(_ call: ProcessorCall, _ outcome: ProcessorOutcome, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try apply(.processorAnswered(call, outcome), at: now)
    }

    /// The cardholder passed the 3-D Secure challenge (`requires_action` → `processing`).
    package mutating func challengePassed(attemptID: String, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try apply(.challengePassed(attemptID: attemptID), at: now)
    }

    /// The cardholder failed the challenge (`requires_action` → `requires_payment_method`).
    package mutating func challengeFailed(attemptID: String, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try apply(.challengeFailed(attemptID: attemptID), at: now)
    }

    /// The cardholder closed the challenge (`requires_action` → `requires_payment_method`).
    package mutating func challengeAbandoned(attemptID: String, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try apply(.challengeAbandoned(attemptID: attemptID), at: now)
    }

    /// The merchant captures `amount` (nil: all of it) (`requires_capture` → `processing`).
    package mutating func captureRequested(amount: Int64?, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try apply(.captureRequested(amount: amount), at: now)
    }

    /// The merchant cancels (→ `canceled`, or → `processing` while an authorization is voided).
    package mutating func cancelRequested(reason: CancellationReason, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try apply(.cancelRequested(reason: reason), at: now)
    }

    /// The merchant refunds part or all of a succeeded intent.
    package mutating func refundRequested(refundID: String, amount: Int64, reason: RefundReason?, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try apply(.refundRequested(refundID: refundID, amount: amount, reason: reason), at: now)
    }

    /// A lookup found `call` at the processor with `outcome`.
    package mutating func reconciliationFound(_ call: ProcessorCall, _ outcome: ProcessorOutcome, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try apply(.reconciliationFound(call, outcome), at: now)
    }

    /// A lookup says the processor never received `call`.
    package mutating func reconciliationNotFound(_ call: ProcessorCall, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try apply(.reconciliationNotFound(call), at: now)
    }

    /// The lookup of `call` got no answer.
    package mutating func reconciliationUnavailable(_ call: ProcessorCall, reason: String, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try apply(.reconciliationUnavailable(call, reason: reason), at: now)
    }

    /// The executor stops reconciling `call` (→ `requires_merchant_action`).
    package mutating func reconciliationExhausted(_ call: ProcessorCall, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try apply(.reconciliationExhausted(call), at: now)
    }

    /// A timer came due.
    package mutating func timerFired(_ kind: PaymentTimer.Kind, reference: String, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try apply(.timerFired(kind, reference: reference), at: now)
    }

    /// An operator resolved what the program could not (`requires_merchant_action` → the
    /// resolution's status; a refund that requires merchant action → succeeded or failed).
    package mutating func operatorResolved(_ resolution: OperatorResolution, _ record: OperatorRecord, at now: Date) throws(PaymentRejection) -> [PaymentAction] {
        try apply(.operatorResolved(resolution, record), at: now)
    }

    // MARK: - Shared helpers

    /// Final intents accept nothing, except that a succeeded one keeps its refund ledger.
    private func rejectIfFinal(_ event: PaymentEvent) throws(PaymentRejection) {
        guard intent.status.isTerminal else { return }
        if intent.status == .succeeded && event.concernsRefunds { return }
        throw reject(.terminal(intent.status))
    }

    func reject(_ reason: PaymentRejection.Reason) -> PaymentRejection {
        PaymentRejection(intentID: intent.id, reason: reason)
    }

    /// The rejection for an event that does not apply in the current status.
    func notAllowed(_ event: String) -> PaymentRejection {
        if let inFlight = intent.inFlight { return reject(.operationInFlight(inFlight.call)) }
        return reject(.notAllowed(event: event, status: intent.status))
    }

    var currentAttemptIndex: Int? {
        guard let id = intent.currentAttemptID else { return nil }
        return attempts.firstIndex { $0.id == id }
    }

    /// Changes the attempt `id` and stamps it.
    mutating func updateAttempt(_ id: String, at now: Date, _ change: (inout Attempt) -> Void) {
        guard let index = attempts.firstIndex(where: { $0.id == id }) else { return }
        change(&attempts[index])
        attempts[index].updatedAt = now
    }

    /// Marks the attempt failed and returns the intent to `requires_payment_method`.
    mutating func failAttempt(_ attemptID: String, _ failure: PaymentFailure, at now: Date) {
        updateAttempt(attemptID, at: now) {
            $0.status = .failed
            $0.failure = failure
        }
        intent.inFlight = nil
        intent.lastError = failure
        intent.status = .requiresPaymentMethod
    }

    /// Stops at `requires_merchant_action`: the program cannot decide alone.
    mutating func requireMerchantAction(_ failure: PaymentFailure) {
        intent.inFlight = nil
        intent.cancellationReason = nil  // a cancel whose void stays unknown is not a cancel yet
        intent.lastError = failure
        intent.status = .requiresMerchantAction
    }

    func amount(_ minorUnits: Int64) -> Amount {
        Amount(minorUnits: minorUnits, currency: intent.currency)
    }
}
