import Foundation

/// One authorization try of an intent. Every Apple Pay token, and every card typed in, is a new
/// attempt; its id is the processor reference and idempotency key, so an attempt is never
/// authorized twice.
public struct Attempt: Sendable, Equatable {
    /// `att_…`.
    public let id: String
    public let intentID: String
    /// 1 for the intent's first attempt, 2 for the next, …
    public let sequence: Int
    public internal(set) var status: AttemptStatus
    public let source: AttemptSource
    /// What may be kept about the card: never the number or the cryptogram.
    public let card: CardSummary
    /// What was asked of the processor (always the intent's amount).
    public let amount: Amount
    /// What the processor said it approved, when it approved.
    public internal(set) var approvedAmount: Amount?
    /// The processor's id for the authorization.
    public internal(set) var processorID: String?
    /// Why the attempt failed, when it did.
    public internal(set) var failure: PaymentFailure?
    /// The Apple Pay sheet waiting on this attempt, when it came from one.
    public internal(set) var sheet: SheetState?
    public let createdAt: Date
    public internal(set) var updatedAt: Date

    /// Builds an attempt as stored (the ledger reads rows with it).
    public init(
        id: String, intentID: String, sequence: Int, status: AttemptStatus, source: AttemptSource, card: CardSummary,
        amount: Amount, approvedAmount: Amount? = nil, processorID: String? = nil, failure: PaymentFailure? = nil,
        sheet: SheetState? = nil, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.intentID = intentID
        self.sequence = sequence
        self.status = status
        self.source = source
        self.card = card
        self.amount = amount
        self.approvedAmount = approvedAmount
        self.processorID = processorID
        self.failure = failure
        self.sheet = sheet
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// Where an attempt stands.
public enum AttemptStatus: String, Sendable, CaseIterable {
    /// Sent to the processor (or about to be); no final answer yet.
    case authorizing
    /// Waiting for the cardholder's 3-D Secure challenge.
    case requiresAction = "requires_action"
    /// Approved and not yet captured.
    case authorized
    case captured
    /// Declined, not processed, not found, or authentication failed (`failure` says which).
    case failed
    /// Released: canceled, or reversed after the sheet had been answered with failure.
    case voided
    /// Lapsed before capture.
    case expired
}

/// How the payer presented the card.
public enum AttemptSource: String, Sendable, CaseIterable {
    /// A decrypted Apple Pay payment token (device PAN + cryptogram).
    case applePay = "apple_pay"
    /// Card details typed in ("Pay in app").
    case card
}

/// What may be kept about a card: network, last four digits, expiry and whether an ECI came
/// with the token. There is deliberately no field that could hold the number or a cryptogram.
public struct CardSummary: Sendable, Equatable, CustomStringConvertible {
    public let network: PaymentNetwork?
    public let last4: String
    public let expiryMonth: Int?
    public let expiryYear: Int?
    public let eciPresent: Bool

    /// Nil unless `last4` is exactly four ASCII digits and the expiry, when given, is a real
    /// month (1–12) and year (2000–2999): nothing longer than the last four digits gets in.
    public init?(network: PaymentNetwork?, last4: String, expiryMonth: Int? = nil, expiryYear: Int? = nil, eciPresent: Bool = false) {
        guard last4.utf8.count == 4, last4.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        if let expiryMonth, !(1...12).contains(expiryMonth) { return nil }
        if let expiryYear, !(2000...2999).contains(expiryYear) { return nil }
        self.init(checkedNetwork: network, last4: last4, expiryMonth: expiryMonth, expiryYear: expiryYear, eciPresent: eciPresent)
    }

    private init(checkedNetwork network: PaymentNetwork?, last4: String, expiryMonth: Int?, expiryYear: Int?, eciPresent: Bool) {
        self.network = network
        self.last4 = last4
        self.expiryMonth = expiryMonth
        self.expiryYear = expiryYear
        self.eciPresent = eciPresent
    }

    /// The summary of the card or token about to be authorized: the number and the cryptogram
    /// stay behind.
    public init(_ method: PaymentMethodData) {
        let eciPresent: Bool
        if case .networkToken(_, _, _, let eci, _) = method { eciPresent = eci != nil } else { eciPresent = false }
        // CardNumber guarantees 12–19 digits and CardExpiry a valid month and year.
        self.init(
            checkedNetwork: method.cardNumber.network, last4: method.cardNumber.last4,
            expiryMonth: method.expiry?.month, expiryYear: method.expiry?.year, eciPresent: eciPresent)
    }

    /// "visa •••• 4242 exp 12/30".
    public var description: String {
        var text = "\(network?.rawValue ?? "card") •••• \(last4)"
        if let expiryMonth, let expiryYear {
            text += " exp \(expiryMonth < 10 ? "0" : "")\(expiryMonth)/\(expiryYear % 100 < 10 ? "0" : "")\(expiryYear % 100)"
        }
        return text
    }
}

/// The Apple Pay sheet's side of an attempt: it must be answered within 30 s, so the backend
/// answers failure at the deadline (~25 s) when the outcome is still unknown.
public enum SheetState: Sendable, Equatable {
    case awaitingAnswer(deadline: Date)
    case answered(SheetAnswer, deadline: Date)

    /// When the sheet must be answered.
    public var deadline: Date {
        switch self {
        case .awaitingAnswer(let deadline), .answered(_, let deadline): deadline
        }
    }

    /// True while the sheet has not been answered.
    public var isAwaitingAnswer: Bool {
        if case .awaitingAnswer = self { return true }
        return false
    }

    /// What the sheet was told, once it was.
    public var answer: SheetAnswer? {
        if case .answered(let answer, _) = self { return answer }
        return nil
    }
}

/// What the Apple Pay sheet is told (`PKPaymentAuthorizationResult.status`).
public enum SheetAnswer: String, Sendable, CaseIterable {
    case success
    case failure
}
