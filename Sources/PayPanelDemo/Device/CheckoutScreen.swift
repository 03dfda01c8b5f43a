import Foundation
import PayPanel

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

/// The 3-D Secure challenge the issuer shows.
public struct ChallengePrompt: Sendable, Equatable {
    /// The two answers, for the focus.
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

extension CheckoutScreen {
    /// The screen as a sentence names it: "the Apple Pay sheet".
    public var name: String {
        switch self {
        case .banner: "the banner"
        case .panel: "the panel"
        case .sheet: "the Apple Pay sheet"
        case .appForm: "the app's card form"
        case .authorizing: "the authorizing screen"
        case .challenge: "the 3-D Secure challenge"
        case .approved: "the approved screen"
        case .unresolved: "the outcome-unknown screen"
        case .failed: "the error screen"
        case .closing, .finished: "the closing screen"
        }
    }

    /// The screen's name for headers: "Apple Pay sheet".
    public var title: String {
        switch self {
        case .banner: "Banner"
        case .panel: "Panel"
        case .sheet: "Apple Pay sheet"
        case .appForm: "Pay in app"
        case .authorizing: "Authorizing"
        case .challenge: "3-D Secure"
        case .approved: "Approved"
        case .unresolved: "Outcome unknown"
        case .failed: "Error"
        case .closing: "Closing"
        case .finished: "Finished"
        }
    }
}
