/// The specification of `PaymentStateMachine`: every accepted transition, as data. Anything
/// not listed is rejected. docs/state-machine.md is generated from it, and a test drives the
/// machine through every (situation × event) pair and checks that it accepts exactly the rows
/// listed here, reaches their status and asks for their work — so the table, the document and
/// the code cannot drift apart.
package enum PaymentTransitionTable {
    /// A state the intent can be in, finer than the status where the status alone does not
    /// decide (which call is in flight, whether the sheet still waits).
    package enum Situation: String, Sendable, CaseIterable {
        case new
        case challenge
        case authorizing
        case authorizingAutomatic = "authorizing_automatic"
        case authorizingWithSheet = "authorizing_with_sheet"
        case authorizingSheetFailed = "authorizing_sheet_failed"
        case completingChallenge = "completing_challenge"
        case capturing
        case voiding
        case reversing
        case authorized
        case merchantAction = "merchant_action"
        case merchantActionAutomatic = "merchant_action_automatic"
        case succeeded
        case refunding
        case refundNeedsMerchant = "refund_needs_merchant"
        case canceled
        case expired

        /// The intent's status in this situation.
        package var status: PaymentStatus {
            switch self {
            case .new: .requiresPaymentMethod
            case .challenge: .requiresAction
            case .authorizing, .authorizingAutomatic, .authorizingWithSheet, .authorizingSheetFailed, .completingChallenge,
                .capturing, .voiding, .reversing:
                .processing
            case .authorized: .requiresCapture
            case .merchantAction, .merchantActionAutomatic: .requiresMerchantAction
            case .succeeded, .refunding, .refundNeedsMerchant: .succeeded
            case .canceled: .canceled
            case .expired: .expired
            }
        }

        /// How the document names it.
        package var label: String {
            switch self {
            case .new: "requires_payment_method"
            case .challenge: "requires_action"
            case .authorizing: "processing: authorize (manual capture)"
            case .authorizingAutomatic: "processing: authorize (automatic capture)"
            case .authorizingWithSheet: "processing: authorize, Apple Pay sheet waiting"
            case .authorizingSheetFailed: "processing: authorize, sheet already answered failure"
            case .completingChallenge: "processing: challenge completion"
            case .capturing: "processing: capture"
            case .voiding: "processing: void (cancel)"
            case .reversing: "processing: void (reversal of a late approval)"
            case .authorized: "requires_capture"
            case .merchantAction: "requires_merchant_action (manual capture)"
            case .merchantActionAutomatic: "requires_merchant_action (automatic capture)"
            case .succeeded: "succeeded"
            case .refunding: "succeeded: a refund pending"
            case .refundNeedsMerchant: "succeeded: a refund requires merchant action"
            case .canceled: "canceled"
            case .expired: "expired"
            }
        }
    }

    /// An event, with the data the table's test gives it.
    package enum Event: String, Sendable, CaseIterable {
        case submit
        case approved
        case approvedOtherAmount = "approved_other_amount"
        case declined
        case challengeRequired = "challenge_required"
        case pending
        case notProcessedRetry = "not_processed_retry"
        case notProcessedFinal = "not_processed_final"
        case unknown
        case challengePassed = "challenge_passed"
        case challengeFailed = "challenge_failed"
        case challengeAbandoned = "challenge_abandoned"
        case capture
        case cancel
        case refund
        case lookupApproved = "lookup_approved"
        case lookupDeclined = "lookup_declined"
        case lookupNotFoundEarly = "lookup_not_found_early"
        case lookupNotFoundLate = "lookup_not_found_late"
        case lookupUnavailable = "lookup_unavailable"
        case reconciliationExhausted = "reconciliation_exhausted"
        case abandonmentTimer = "abandonment_timer"
        case challengeExpiryTimer = "challenge_expiry_timer"
        case sheetDeadlineTimer = "sheet_deadline_timer"
        case sheetAnswerDue = "sheet_answer_due"
        case authorizationExpiryTimer = "authorization_expiry_timer"
        case resolveRetry = "resolve_retry"
        case resolveCanceled = "resolve_canceled"
        case resolveCanceledVoiding = "resolve_canceled_voiding"
        case resolveAuthorized = "resolve_authorized"
        case resolveSucceeded = "resolve_succeeded"
        case resolveSucceededForced = "resolve_succeeded_forced"
        case resolveRefundSucceeded = "resolve_refund_succeeded"
        case resolveRefundFailed = "resolve_refund_failed"

        /// How the document names it.
        package var label: String {
            switch self {
            case .submit: "card or token submitted"
            case .approved: "processor approved"
            case .approvedOtherAmount: "processor approved another amount"
            case .declined: "processor declined"
            case .challengeRequired: "processor asks for 3-D Secure"
            case .pending: "processor answered pending"
            case .notProcessedRetry: "processor did not process it (retries left)"
            case .notProcessedFinal: "processor did not process it (no retries left)"
            case .unknown: "processor outcome unknown"
            case .challengePassed: "challenge passed"
            case .challengeFailed: "challenge failed"
            case .challengeAbandoned: "challenge abandoned"
            case .capture: "capture requested"
            case .cancel: "cancel requested"
            case .refund: "refund requested (within the remainder)"
            case .lookupApproved: "lookup found an approval"
            case .lookupDeclined: "lookup found a decline"
            case .lookupNotFoundEarly: "lookup found nothing, within the grace period"
            case .lookupNotFoundLate: "lookup found nothing after the grace period"
            case .lookupUnavailable: "lookup got no answer (lookups left)"
            case .reconciliationExhausted: "reconciliation exhausted"
            case .abandonmentTimer: "abandonment timer"
            case .challengeExpiryTimer: "challenge expiry timer"
            case .sheetDeadlineTimer: "sheet deadline timer (~25 s)"
            case .sheetAnswerDue: "the device is answered before the outcome is known"
            case .authorizationExpiryTimer: "authorization expiry timer"
            case .resolveRetry: "operator: retry (the processor holds nothing, or voided it)"
            case .resolveCanceled: "operator: canceled (the processor holds nothing, or voided it)"
            case .resolveCanceledVoiding: "operator: canceled (the processor holds an authorization)"
            case .resolveAuthorized: "operator: authorized (the processor holds the authorization)"
            case .resolveSucceeded: "operator: succeeded (the processor captured)"
            case .resolveSucceededForced: "operator: succeeded, forced (the processor never captured)"
            case .resolveRefundSucceeded: "operator: mark refund succeeded"
            case .resolveRefundFailed: "operator: mark refund failed"
            }
        }
    }

    /// One accepted transition: from a situation, on an event, to a status, with the work the
    /// executor is handed (`PaymentAction.summary`, in order) and a note.
    package struct Rule: Sendable, Equatable {
        package let situation: Situation
        package let event: Event
        package let to: PaymentStatus
        package let work: [String]
        package let note: String
    }

    /// Every accepted transition, by situation.
    package static let rules: [Rule] = {
        var rules: [Rule] = []
        func add(_ situation: Situation, _ event: Event, _ to: PaymentStatus, _ work: [String] = [], _ note: String = "") {
            rules.append(Rule(situation: situation, event: event, to: to, work: work, note: note))
        }
        // Calls that need no card data are sent again when the processor has no record of them.
        let resent = "sent again at once with the same reference (no card data needed; the processor counts it once)"

        add(.new, .submit, .processing, ["authorize"], "attempt opened; the previous last error is cleared")
        add(.new, .cancel, .canceled)
        add(.new, .abandonmentTimer, .canceled, [], "reason: abandoned")

        add(.challenge, .challengePassed, .processing, ["complete challenge"])
        add(.challenge, .challengeFailed, .requiresPaymentMethod, [], "attempt failed: payment_intent_authentication_failure")
        add(.challenge, .challengeAbandoned, .requiresPaymentMethod, [], "attempt failed: authentication_abandoned")
        add(.challenge, .challengeExpiryTimer, .requiresPaymentMethod, [], "attempt failed: authentication_timed_out")
        add(.challenge, .cancel, .canceled)

        // Waiting for an authorization (or a challenge completion): the same answers apply.
        func authorization(_ situation: Situation, approved: PaymentStatus, approvedWork: [String], otherAmount: PaymentStatus,
                           otherWork: [String], failedWork: [String], note: String) {
            add(situation, .approved, approved, approvedWork, note)
            add(situation, .lookupApproved, approved, approvedWork, note)
            add(situation, .approvedOtherAmount, otherAmount, otherWork,
                otherAmount == .requiresMerchantAction ? "processor_amount_mismatch: an operator checks the authorization" : note)
            add(situation, .declined, .requiresPaymentMethod, failedWork, "attempt failed: card_declined with the decline code")
            add(situation, .lookupDeclined, .requiresPaymentMethod, failedWork, "attempt failed: card_declined with the decline code")
            add(situation, .challengeRequired, .requiresAction, [], "challenge expiry timer set; a waiting sheet keeps waiting")
            add(situation, .notProcessedFinal, .requiresPaymentMethod, failedWork, "attempt failed: processor_unavailable")
            if situation == .completingChallenge {
                // The completion needs no card data: it is sent again rather than failed.
                add(situation, .lookupNotFoundLate, .processing, ["complete challenge"], resent)
                waiting(situation, retry: "complete challenge", resendsWhenNotFound: true, exhaustedWork: failedWork)
            } else {
                add(situation, .lookupNotFoundLate, .requiresPaymentMethod, failedWork, "attempt failed: processor_has_no_record")
                waiting(situation, retry: "authorize", resendsWhenNotFound: false, exhaustedWork: failedWork)
            }
        }
        // Answers that leave the call waiting, and the giving-up of reconciliation.
        func waiting(_ situation: Situation, retry: String, resendsWhenNotFound: Bool, exhaustedWork: [String] = []) {
            add(situation, .pending, .processing, [], "outcome unknown: reconciliation timer set")
            add(situation, .unknown, .processing, [], "outcome unknown: never taken as a failure; reconciliation timer set")
            add(situation, .notProcessedRetry, .processing, [retry], "same reference (the processor's idempotency key)")
            if resendsWhenNotFound {
                add(situation, .lookupNotFoundEarly, .processing, [retry], resent)
            } else {
                add(situation, .lookupNotFoundEarly, .processing, [], "lookup repeated later")
            }
            add(situation, .lookupUnavailable, .processing, [], "lookup repeated later")
            add(situation, .reconciliationExhausted, .requiresMerchantAction, exhaustedWork, "reconciliation_exhausted")
        }
        authorization(.authorizing, approved: .requiresCapture, approvedWork: [], otherAmount: .requiresMerchantAction,
                      otherWork: [], failedWork: [], note: "capture_before = min(7 days, processor expiry); expiry timer set")
        authorization(.authorizingAutomatic, approved: .processing, approvedWork: ["capture"], otherAmount: .requiresMerchantAction,
                      otherWork: [], failedWork: [], note: "captured at once")
        authorization(.authorizingWithSheet, approved: .requiresCapture, approvedWork: ["answer sheet: success"],
                      otherAmount: .requiresMerchantAction, otherWork: ["answer sheet: failure"],
                      failedWork: ["answer sheet: failure"], note: "the sheet learns the outcome")
        add(.authorizingWithSheet, .sheetDeadlineTimer, .processing, ["answer sheet: failure"], "outcome still open: a later approval is reversed")
        add(.authorizingWithSheet, .sheetAnswerDue, .processing, ["answer sheet: failure"],
            "the answer the device gets is recorded first: a later approval is reversed")
        authorization(.authorizingSheetFailed, approved: .processing, approvedWork: ["void (reversal)"], otherAmount: .processing,
                      otherWork: ["void (reversal)"], failedWork: [], note: "late approval: the payer was told it failed, so it is voided")
        authorization(.completingChallenge, approved: .requiresCapture, approvedWork: [], otherAmount: .requiresMerchantAction,
                      otherWork: [], failedWork: [], note: "capture_before = min(7 days, processor expiry); expiry timer set")

        add(.capturing, .approved, .succeeded)
        add(.capturing, .lookupApproved, .succeeded)
        add(.capturing, .approvedOtherAmount, .requiresMerchantAction, [], "processor_amount_mismatch on the capture")
        add(.capturing, .declined, .requiresCapture, [], "capture_failed: capture again or cancel")
        add(.capturing, .lookupDeclined, .requiresCapture, [], "capture_failed: capture again or cancel")
        add(.capturing, .notProcessedFinal, .requiresCapture, [], "processor_unavailable")
        add(.capturing, .lookupNotFoundLate, .processing, ["capture"], resent)
        waiting(.capturing, retry: "capture", resendsWhenNotFound: true)

        add(.voiding, .approved, .canceled)
        add(.voiding, .lookupApproved, .canceled)
        add(.voiding, .approvedOtherAmount, .canceled)
        add(.voiding, .declined, .requiresCapture, [], "void_failed: the authorization stands")
        add(.voiding, .lookupDeclined, .requiresCapture, [], "void_failed: the authorization stands")
        add(.voiding, .notProcessedFinal, .requiresCapture, [], "processor_unavailable")
        add(.voiding, .lookupNotFoundLate, .processing, ["void (cancel)"], resent)
        waiting(.voiding, retry: "void (cancel)", resendsWhenNotFound: true)

        add(.reversing, .approved, .requiresPaymentMethod, [], "sheet_deadline_exceeded: reversed; the payer may pay again")
        add(.reversing, .lookupApproved, .requiresPaymentMethod, [], "sheet_deadline_exceeded: reversed; the payer may pay again")
        add(.reversing, .approvedOtherAmount, .requiresPaymentMethod, [], "sheet_deadline_exceeded: reversed")
        add(.reversing, .declined, .requiresMerchantAction, [], "reversal_failed: money held after a failure answer")
        add(.reversing, .lookupDeclined, .requiresMerchantAction, [], "reversal_failed")
        add(.reversing, .notProcessedFinal, .processing, [], "reversal stays in flight: looked up and sent again on its timer, never given up for an unreachable processor")
        add(.reversing, .lookupNotFoundLate, .processing, ["void (reversal)"], resent)
        waiting(.reversing, retry: "void (reversal)", resendsWhenNotFound: true)

        add(.authorized, .capture, .processing, ["capture"], "0 < amount ≤ capturable, before capture_before")
        add(.authorized, .cancel, .processing, ["void (cancel)"], "the reason waits with the void")
        add(.authorized, .authorizationExpiryTimer, .expired, ["void (authorization expired, best effort)"], "at capture_before")

        // The ways out of requires_merchant_action. The processor's ledger must agree with the
        // resolution (ProcessorHolding.allows), or the operator forces it; either way the
        // record (note, operator, forced, what the processor held) is kept in the history.
        for situation in [Situation.merchantAction, .merchantActionAutomatic] {
            add(situation, .resolveRetry, .requiresPaymentMethod, [], "the attempt ends; last_error resolved_by_operator; the payer may pay again")
            add(situation, .resolveCanceled, .canceled, [], "reason: operator; the attempt ends")
            add(situation, .resolveCanceledVoiding, .processing, ["void (cancel)"],
                "the authorization is recorded and voided as a cancel (reason: operator): canceled once the void succeeds")
            add(situation, .resolveSucceeded, .succeeded, [], "captured = what the processor captured")
            add(situation, .resolveSucceededForced, .succeeded, [], "captured = the authorized amount; the override is recorded")
        }
        add(.merchantAction, .resolveAuthorized, .requiresCapture, [],
            "the processor's authorization; capture_before = min(7 days from the attempt, processor expiry); expiry timer set")
        add(.merchantActionAutomatic, .resolveAuthorized, .processing, ["capture"], "captured at once, as after an approval")

        add(.succeeded, .refund, .succeeded, ["refund"], "refund pending: its amount is reserved")
        add(.refunding, .refund, .succeeded, ["refund"], "pending + succeeded refunds stay ≤ captured")
        add(.refunding, .approved, .succeeded, [], "refund succeeded")
        add(.refunding, .lookupApproved, .succeeded, [], "refund succeeded")
        add(.refunding, .approvedOtherAmount, .succeeded, [], "refund requires_merchant_action (amount stays reserved)")
        add(.refunding, .declined, .succeeded, [], "refund failed: the amount is refundable again")
        add(.refunding, .lookupDeclined, .succeeded, [], "refund failed")
        add(.refunding, .pending, .succeeded, [], "refund accepted, finishing later: looked up on its timer")
        add(.refunding, .unknown, .succeeded, [], "refund outcome unknown: reconciliation timer set")
        add(.refunding, .notProcessedRetry, .succeeded, ["refund"], "same refund id (the processor's idempotency key)")
        add(.refunding, .notProcessedFinal, .succeeded, [], "refund stays pending: looked up and sent again on its timer, never failed for an unreachable processor")
        add(.refunding, .lookupNotFoundEarly, .succeeded, ["refund"], "refund " + resent)
        add(.refunding, .lookupNotFoundLate, .succeeded, ["refund"], "refund " + resent)
        add(.refunding, .lookupUnavailable, .succeeded, [], "lookup repeated later")
        add(.refunding, .reconciliationExhausted, .succeeded, [], "refund requires_merchant_action (amount stays reserved)")
        add(.refundNeedsMerchant, .refund, .succeeded, ["refund"], "pending + succeeded refunds stay ≤ captured")
        add(.refundNeedsMerchant, .resolveRefundSucceeded, .succeeded, [], "refund succeeded")
        add(.refundNeedsMerchant, .resolveRefundFailed, .succeeded, [], "refund failed: the amount is refundable again")
        return rules
    }()

    /// The rule for a situation and an event, if the machine accepts the event there.
    package static func rule(_ situation: Situation, _ event: Event) -> Rule? {
        rules.first { $0.situation == situation && $0.event == event }
    }
}

extension PaymentAction {
    /// A short name for the executor's work (the transition table's "work" column); nil for
    /// the effects the ledger persists.
    package var summary: String? {
        switch self {
        case .callProcessorAuthorize: "authorize"
        case .callProcessorCompleteChallenge: "complete challenge"
        case .callProcessorCapture: "capture"
        case .voidAuthorization(_, .cancel): "void (cancel)"
        case .voidAuthorization(_, .reversal): "void (reversal)"
        case .voidAuthorization(_, .authorizationExpired): "void (authorization expired, best effort)"
        case .callProcessorRefund: "refund"
        case .answerSheet(_, let result): "answer sheet: \(result.rawValue)"
        case .scheduleTimer, .cancelTimer, .emitOutbox: nil
        }
    }
}
