import Foundation

/// One checkout: the amount to collect and everything that happened to it since. The state
/// machine is the only thing that changes it; the ledger stores it with its `version`.
public struct PaymentIntent: Sendable, Equatable {
    /// `pi_…`.
    public let id: String
    public let amount: Amount
    public let captureMethod: CaptureMethod
    /// The merchant's own reference for the order, when given.
    public let orderReference: String?
    /// The merchant's own key-value pairs, fixed at creation.
    public let metadata: Metadata
    public internal(set) var status: PaymentStatus
    /// What the processor authorized for this intent (minor units); 0 before.
    public internal(set) var amountAuthorized: Int64 = 0
    /// What was captured (minor units).
    public internal(set) var amountCaptured: Int64 = 0
    /// Refunds that succeeded (minor units).
    public internal(set) var amountRefunded: Int64 = 0
    /// Refunds not yet final, reserved so that no refund can exceed the captured amount.
    public internal(set) var amountRefundPending: Int64 = 0
    /// The last moment the authorization can be captured (set when it is approved).
    public internal(set) var captureBefore: Date?
    /// How many attempts were opened.
    public internal(set) var attemptCount: Int = 0
    /// The latest attempt.
    public internal(set) var currentAttemptID: String?
    /// The processor call in flight; set exactly when the status is `processing`.
    public internal(set) var inFlight: InFlightOperation?
    /// Why the last attempt or operation failed.
    public internal(set) var lastError: PaymentFailure?
    /// Set exactly when the status is `canceled`.
    public internal(set) var cancellationReason: CancellationReason?
    /// Raised by one on every accepted event: the optimistic-concurrency token.
    public internal(set) var version: Int64
    public let createdAt: Date
    public internal(set) var updatedAt: Date

    /// Builds an intent as stored (the ledger reads rows with it). New intents come from
    /// `PaymentStateMachine.create`.
    public init(
        id: String, amount: Amount, captureMethod: CaptureMethod, orderReference: String?, status: PaymentStatus,
        amountAuthorized: Int64 = 0, amountCaptured: Int64 = 0, amountRefunded: Int64 = 0, amountRefundPending: Int64 = 0,
        captureBefore: Date? = nil, attemptCount: Int = 0, currentAttemptID: String? = nil, inFlight: InFlightOperation? = nil,
        lastError: PaymentFailure? = nil, cancellationReason: CancellationReason? = nil, version: Int64,
        createdAt: Date, updatedAt: Date, metadata: Metadata = .empty
    ) {
        self.id = id
        self.amount = amount
        self.captureMethod = captureMethod
        self.orderReference = orderReference
        self.metadata = metadata
        self.status = status
        self.amountAuthorized = amountAuthorized
        self.amountCaptured = amountCaptured
        self.amountRefunded = amountRefunded
        self.amountRefundPending = amountRefundPending
        self.captureBefore = captureBefore
        self.attemptCount = attemptCount
        self.currentAttemptID = currentAttemptID
        self.inFlight = inFlight
        self.lastError = lastError
        self.cancellationReason = cancellationReason
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// What can still be captured: the uncaptured authorization while it waits for capture.
    public var amountCapturable: Int64 {
        status == .requiresCapture ? amountAuthorized - amountCaptured : 0
    }

    /// What can still be refunded: the captured amount less succeeded and pending refunds.
    public var amountRefundable: Int64 {
        status == .succeeded ? amountCaptured - amountRefunded - amountRefundPending : 0
    }

    /// The intent's currency.
    public var currency: Currency { amount.currency }
}

/// The processor call an intent in `processing` is waiting on.
public struct InFlightOperation: Sendable, Equatable {
    /// Which call.
    public enum Kind: String, Sendable, CaseIterable {
        case authorize
        case completeChallenge = "complete_challenge"
        case capture
        case void
    }

    /// Why a void was sent: the outcome leads to different states.
    public enum VoidPurpose: String, Sendable, CaseIterable {
        /// The merchant canceled an authorized intent.
        case cancel
        /// An approval arrived after the sheet had been answered with failure: give it back.
        case reversal
    }

    public let kind: Kind
    public let attemptID: String
    /// The amount the call moves (minor units): the intent's amount, or the capture's.
    public let amount: Int64
    public let voidPurpose: VoidPurpose?
    public let startedAt: Date
    /// Set when the processor's answer was unknown (timeout, ambiguous 5xx): reconcile.
    public internal(set) var outcomeUnknownSince: Date?
    /// Lookups made so far to reconcile this call.
    public internal(set) var reconciliationLookups: Int
    /// Retries after "not processed" answers (HTTP 503/429), with the same reference.
    public internal(set) var processorRetries: Int

    /// A call in flight, as stored.
    public init(
        kind: Kind, attemptID: String, amount: Int64, voidPurpose: VoidPurpose? = nil, startedAt: Date,
        outcomeUnknownSince: Date? = nil, reconciliationLookups: Int = 0, processorRetries: Int = 0
    ) {
        self.kind = kind
        self.attemptID = attemptID
        self.amount = amount
        self.voidPurpose = voidPurpose
        self.startedAt = startedAt
        self.outcomeUnknownSince = outcomeUnknownSince
        self.reconciliationLookups = reconciliationLookups
        self.processorRetries = processorRetries
    }

    /// The call as the processor sees it.
    public var call: ProcessorCall {
        switch kind {
        case .authorize: .authorize(attemptID: attemptID)
        case .completeChallenge: .completeChallenge(attemptID: attemptID)
        case .capture: .capture(attemptID: attemptID)
        case .void: .void(attemptID: attemptID)
        }
    }
}

/// Why an attempt or an operation failed: a stable code for programs, the processor's decline
/// code when there is one, and a message for the merchant. `payerMessage` is what the payer
/// may be told (lost and stolen cards get the generic text).
public struct PaymentFailure: Sendable, Equatable {
    public let code: FailureCode
    public let declineCode: DeclineCode?
    /// For the merchant and the logs; never holds card data.
    public let message: String
    /// The attempt that failed, when an attempt did.
    public let attemptID: String?

    /// A failure; digit runs that could be a card number are redacted from `message`.
    public init(code: FailureCode, declineCode: DeclineCode? = nil, message: String, attemptID: String?) {
        self.code = code
        self.declineCode = declineCode
        self.message = SensitiveDigits.redacted(message)
        self.attemptID = attemptID
    }

    /// What the payer may be told.
    public var payerMessage: String {
        if let declineCode { return declineCode.payerMessage }
        return code.payerMessage
    }
}

/// The stable failure codes of `PaymentFailure` (Stripe's where it has one).
public enum FailureCode: String, Sendable, CaseIterable {
    case cardDeclined = "card_declined"
    case authenticationFailed = "payment_intent_authentication_failure"
    case authenticationAbandoned = "authentication_abandoned"
    case authenticationTimedOut = "authentication_timed_out"
    case processorUnavailable = "processor_unavailable"
    case processorHasNoRecord = "processor_has_no_record"
    case amountMismatch = "processor_amount_mismatch"
    case captureFailed = "capture_failed"
    case voidFailed = "void_failed"
    case reversalFailed = "reversal_failed"
    case reconciliationExhausted = "reconciliation_exhausted"
    case sheetDeadlineExceeded = "sheet_deadline_exceeded"
    case unexpectedProcessorAnswer = "unexpected_processor_answer"
    /// An operator ended the attempt resolving the intent (`retry`, or `canceled` with
    /// nothing left to void).
    case resolvedByOperator = "resolved_by_operator"

    /// What the payer may be told when there is no decline code.
    public var payerMessage: String {
        switch self {
        case .authenticationFailed, .authenticationAbandoned, .authenticationTimedOut:
            "Your bank could not verify this payment. Try again or use another card."
        case .sheetDeadlineExceeded, .processorUnavailable, .processorHasNoRecord, .resolvedByOperator:
            "This payment could not be completed. Try again."
        default:
            "This payment could not be completed."
        }
    }
}
