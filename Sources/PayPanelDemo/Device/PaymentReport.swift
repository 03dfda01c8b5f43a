import Foundation
import PayPanel

/// Where a payment stands after the backend ran: the intent and its attempt as read back from
/// the database, and what that means for the screen.
public struct PaymentReport: Sendable, Equatable {
    /// What the payer sees next.
    public enum Outcome: String, Sendable, Equatable {
        /// Captured, or authorized and waiting for a manual capture.
        case approved
        /// The issuer asks for a 3-D Secure challenge.
        case challenge
        /// The attempt failed; another card may be tried (a new attempt).
        case declined
        /// The processor's answer is not known yet; reconciliation will learn it.
        case outcomeUnknown = "outcome_unknown"
        /// An operator must look at it (an amount mismatch, reconciliation exhausted).
        case merchantAction = "merchant_action"
        /// The intent ended without a payment (canceled or expired meanwhile).
        case ended
    }

    public let intent: PaymentIntent
    /// The attempt the operation was about (the intent's current attempt).
    public let attempt: Attempt?
    public let channel: PaymentChannel
    public let cardLabel: String

    /// The report of `details`, about its current attempt.
    public init(details: PaymentDetails, channel: PaymentChannel, cardLabel: String) {
        intent = details.intent
        attempt = details.attempts.first { $0.id == details.intent.currentAttemptID }
        self.channel = channel
        self.cardLabel = cardLabel
    }

    /// What the intent's status means for the payer.
    public var outcome: Outcome {
        switch intent.status {
        case .succeeded, .requiresCapture: .approved
        case .requiresAction: .challenge
        case .requiresPaymentMethod: .declined
        case .processing: .outcomeUnknown
        case .requiresMerchantAction: .merchantAction
        case .canceled, .expired: .ended
        }
    }

    /// The failure the payer is told about, for a declined attempt.
    public var failureNotice: FailureNotice {
        let failure = attempt?.failure ?? intent.lastError
        return FailureNotice(
            payerMessage: failure?.payerMessage ?? FailureCode.unexpectedProcessorAnswer.payerMessage,
            failureCode: failure?.code.rawValue ?? "unknown", declineCode: failure?.declineCode?.rawValue,
            attemptID: attempt?.id, cardLabel: cardLabel)
    }

    /// True when an Apple Pay sheet was answered "failure" at its deadline.
    public var sheetTimedOut: Bool { attempt?.sheet?.answer == .failure }
}

/// A failed attempt as the payer sees it on the sheet or the form: the payer-safe message
/// (never "lost card"), and the codes for the merchant.
public struct FailureNotice: Sendable, Equatable {
    public let payerMessage: String
    /// `card_declined`, `payment_intent_authentication_failure`, …
    public let failureCode: String
    /// The processor's decline code (`insufficient_funds`, `lost_card`), when there is one.
    public let declineCode: String?
    public let attemptID: String?
    /// The card that failed ("Visa •••• 9995").
    public let cardLabel: String
}
