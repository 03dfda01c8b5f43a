import Foundation

/// The screen the device shows. The data behind each screen lives in `CheckoutFlow`
/// (`sheet`, `form`, `challenge`, `authorizing`, `report`, `problem`).
public enum CheckoutScreen: String, Sendable, Equatable, CaseIterable {
    /// The notification banner: title, subtitle, a few body lines.
    case banner
    /// The expanded panel: the amounts, Buy with Apple Pay, Pay in app.
    case panel
    /// The Apple Pay sheet: summary items, total, wallet cards, confirm.
    case sheet
    /// "The app": a card form paying the same intent.
    case appForm = "app_form"
    /// Waiting for the backend (spinner).
    case authorizing
    /// The 3-D Secure challenge: pass or fail.
    case challenge
    /// The payment went through (captured, or authorized for a manual capture).
    case approved
    /// The outcome is not known (the sheet's deadline passed, or the processor did not answer),
    /// or the payment needs the merchant: the flow ends here with a failure.
    case unresolved = "outcome_unknown"
    /// The backend refused the checkout (a token it could not accept, too many attempts…).
    case failed = "error"
    /// Leaving: an unpaid intent is being canceled.
    case closing
    /// The checkout is over (`CheckoutFlow.ending` says how).
    case finished
}

/// Where the payer pays: the Apple Pay sheet, or the card form in the app.
public enum PaymentChannel: String, Sendable, Equatable {
    case applePay = "apple_pay"
    case app

    /// "Apple Pay", "Pay in app".
    public var title: String {
        switch self {
        case .applePay: "Apple Pay"
        case .app: "Pay in app"
        }
    }
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

/// The Apple Pay sheet for one payment request: what it shows and which card is chosen.
public struct PaymentSheet: Sendable, Equatable {
    /// What is in focus: a card row (index into `cards`) or the confirm button.
    public enum Focus: Sendable, Equatable {
        case card(Int)
        case confirm
    }

    /// The request as built from the panel and validated (`PaymentRequestRules`).
    public let request: PaymentRequest
    /// The validator's warnings (a total labelled like a product rather than the merchant).
    public let warnings: [String]
    /// The wallet's cards of the request's networks, in wallet order.
    public let cards: [WalletCard]
    public internal(set) var selectedIndex: Int
    public internal(set) var focus: Focus
    /// The last failed attempt on this sheet.
    public internal(set) var failure: FailureNotice?

    /// The amount the sheet pays: the request's total.
    public var amount: Amount { request.total?.amount ?? Amount(minorUnits: 0, currency: request.currency) }

    /// The chosen card, when the wallet has one for these networks.
    public var selectedCard: WalletCard? { cards.indices.contains(selectedIndex) ? cards[selectedIndex] : nil }
}

/// The app's card form (Pay in app): what was typed, where the focus is, and AutoFill from the
/// wallet. The typed number stays in memory and is shown masked except while it is typed.
public struct CardForm: Sendable, Equatable {
    /// The form's focusable rows, top to bottom.
    public enum Field: String, Sendable, Equatable, CaseIterable {
        case autofill
        case number
        case expiry
        case holder
        case pay
    }

    public let amount: Amount
    /// The wallet cards AutoFill offers (those of the panel's networks).
    public let walletCards: [WalletCard]
    public internal(set) var numberText = ""
    public internal(set) var expiryText = ""
    public internal(set) var holderText = ""
    public internal(set) var focus: Field = .autofill
    /// The wallet card AutoFill shows (index into `walletCards`).
    public internal(set) var autofillIndex = 0
    /// The last failed attempt in the app.
    public internal(set) var failure: FailureNotice?
    /// Why the last Pay was refused before sending anything (an invalid number…).
    public internal(set) var inputError: String?

    /// The number as it may be shown: "Visa •••• 4242", or nil when nothing valid is typed.
    public var maskedNumber: String? {
        guard let number = try? CardNumber(numberText) else { return nil }
        return "\(number.network.map(WalletCard.displayName) ?? "Card") •••• \(number.last4)"
    }

    /// Only digits and spaces count as typing in the number field, and at most 23 of them.
    static let numberLimit = 23
    static let expiryLimit = 7
    static let holderLimit = 40
}

/// The 3-D Secure challenge the issuer shows.
public struct ChallengePrompt: Sendable, Equatable {
    public enum Choice: String, Sendable, Equatable {
        case pass
        case fail
    }

    public let channel: PaymentChannel
    public let intentID: String
    public let cardLabel: String
    public let amount: Amount
    public internal(set) var focus: Choice = .pass
}

/// What the spinner screen says while the backend works.
public struct AuthorizingState: Sendable, Equatable {
    /// What is being waited for.
    public enum Step: String, Sendable, Equatable {
        /// The payment itself (sealing, verifying, authorizing, capturing).
        case payment
        /// The issuer's answer to a 3-D Secure challenge.
        case challenge
    }

    public let channel: PaymentChannel
    public let step: Step
    public let cardLabel: String
    public let amount: Amount
    public let startedAt: Date
}

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

    public init(details: PaymentDetails, channel: PaymentChannel, cardLabel: String) {
        intent = details.intent
        attempt = details.attempts.first { $0.id == details.intent.currentAttemptID }
        self.channel = channel
        self.cardLabel = cardLabel
    }

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

/// Something the backend refused, shown as the error screen.
public struct CheckoutProblem: Sendable, Equatable {
    /// A stable snake_case code (`token_signing_time_stale`, `too_many_attempts`…).
    public let code: String
    /// One line saying what went wrong and what to do; never card data.
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = SensitiveDigits.redacted(message)
    }

    /// The problem of a thrown error: its code and message when it is a `PayPanelError`.
    public init(_ error: any Error) {
        if let error = error as? any PayPanelError {
            self.init(code: error.code, message: error.message)
        } else {
            self.init(code: "unexpected_error", message: String(describing: error))
        }
    }
}

/// How the checkout ended, and the exit status that says so.
public struct CheckoutEnding: Sendable, Equatable {
    public enum Reason: String, Sendable, Equatable {
        /// A payment went through (captured, or authorized for manual capture).
        case paid
        /// The payer left before paying; an unpaid intent was canceled.
        case quit
        /// The flow ended on a failure: an unknown outcome, an error, an intent for the merchant.
        case failed
    }

    public let reason: Reason
    /// The checkout's intent as last read back, if one was created.
    public let intent: PaymentIntent?
    /// Set when canceling the unpaid intent on the way out did not work.
    public let cancelProblem: CheckoutProblem?

    /// 0 for paid and quit, 1 for failed.
    public var exitCode: Int32 { reason == .failed ? 1 : 0 }
}
