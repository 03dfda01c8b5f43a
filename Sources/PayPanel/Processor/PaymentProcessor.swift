import Foundation

/// A payment processor (acquirer gateway) as the payment service sees it. Every call carries
/// the caller's reference — the attempt id — which is also the processor's idempotency key:
/// calling again with the same reference never charges twice.
///
/// Calls take a client-side `timeout`, like an HTTP client would: when the processor does not
/// answer in time the outcome is `.unknown`, and the caller must reconcile with `lookup`.
public protocol PaymentProcessor: Sendable {
    /// Authorizes `request.amount` on the card or network token.
    func authorize(_ request: AuthorizationRequest, timeout: Duration) async -> ProcessorOutcome
    /// Completes a 3-D Secure challenge started by `authorize` (`.challengeRequired`).
    func completeChallenge(reference: String, passed: Bool, timeout: Duration) async -> ProcessorOutcome
    /// Captures (part of) an approved authorization.
    func capture(_ request: CaptureRequest, timeout: Duration) async -> ProcessorOutcome
    /// Releases an approved, uncaptured authorization.
    func void(reference: String, timeout: Duration) async -> ProcessorOutcome
    /// Refunds (part of) a capture. `request.refundReference` is the refund's idempotency key.
    func refund(_ request: RefundRequest, timeout: Duration) async -> ProcessorOutcome
    /// What the processor knows about an operation: how unknown outcomes are reconciled.
    /// `reference` is the attempt id (authorization) or the refund reference.
    func lookup(reference: String, operation: ProcessorOperation, timeout: Duration) async -> LookupResult
}

/// The kinds of operation a processor performs.
public enum ProcessorOperation: String, Sendable, CaseIterable {
    case authorize
    case capture
    case void
    case refund
}

/// How the card is presented: typed-in card data (Pay in app), or a decrypted Apple Pay
/// network token (DPAN + cryptogram).
public enum PaymentMethodData: Sendable, CustomStringConvertible {
    case card(number: CardNumber, expiry: CardExpiry?, holderName: String?)
    case networkToken(dpan: CardNumber, expiry: CardExpiry, cryptogram: Cryptogram, eci: String?, holderName: String?)

    public var cardNumber: CardNumber {
        switch self {
        case .card(let number, _, _): number
        case .networkToken(let dpan, _, _, _, _): dpan
        }
    }

    public var holderName: String? {
        switch self {
        case .card(_, _, let holder): holder
        case .networkToken(_, _, _, _, let holder): holder
        }
    }

    public var expiry: CardExpiry? {
        switch self {
        case .card(_, let expiry, _): expiry
        case .networkToken(_, let expiry, _, _, _): expiry
        }
    }

    /// Safe to log: network, last four digits and expiry only.
    public var description: String {
        let network = cardNumber.network?.rawValue ?? "card"
        let expiry = expiry.map { " exp \($0)" } ?? ""
        switch self {
        case .card: return "\(network) \(cardNumber)\(expiry)"
        case .networkToken(_, _, _, let eci, _): return "\(network) token \(cardNumber)\(expiry)\(eci == nil ? "" : " eci")"
        }
    }
}

/// An Apple Pay online payment cryptogram (base64). Prints redacted; never store it.
public struct Cryptogram: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The cryptogram as delivered (base64). Handle with care: never store, log or print it.
    public let value: String
    /// When the wallet generated it (the token's signing time), if known. A cryptogram is good
    /// for one authorization shortly after it was made; processors refuse old ones, and this is
    /// what the mock processor measures that age from (against its injected clock).
    public let generatedAt: Date?

    public init(_ value: String, generatedAt: Date? = nil) {
        self.value = value
        self.generatedAt = generatedAt
    }

    public var description: String { "<cryptogram>" }
    public var debugDescription: String { "Cryptogram(<redacted>)" }
}

/// An authorization: reserve `amount` on the card or network token, identified by the attempt id.
public struct AuthorizationRequest: Sendable {
    /// The attempt id: the caller's reference and the processor's idempotency key.
    public let reference: String
    public let amount: Amount
    public let paymentMethod: PaymentMethodData
    /// Forces a mock-processor scenario (tests); real processors ignore it.
    public let scenario: String?

    public init(reference: String, amount: Amount, paymentMethod: PaymentMethodData, scenario: String? = nil) {
        self.reference = reference
        self.amount = amount
        self.paymentMethod = paymentMethod
        self.scenario = scenario
    }
}

/// A capture of (part of) an approved authorization.
public struct CaptureRequest: Sendable {
    /// The attempt id of the authorization to capture.
    public let reference: String
    public let amount: Amount

    public init(reference: String, amount: Amount) {
        self.reference = reference
        self.amount = amount
    }
}

/// A refund of (part of) a captured authorization, with its own idempotency key.
public struct RefundRequest: Sendable {
    /// The attempt id of the captured authorization.
    public let reference: String
    /// The refund's own id: its idempotency key at the processor.
    public let refundReference: String
    public let amount: Amount

    public init(reference: String, refundReference: String, amount: Amount) {
        self.reference = reference
        self.refundReference = refundReference
        self.amount = amount
    }
}

/// What a processor answered.
public enum ProcessorOutcome: Sendable, Equatable {
    /// Done. For an authorization, `approval` holds what the processor granted.
    case approved(ProcessorApproval)
    /// Refused, with the processor's decline code (e.g. `insufficient_funds`).
    case declined(DeclineCode)
    /// 3-D Secure: the cardholder must pass a challenge (`completeChallenge`).
    case challengeRequired
    /// Accepted, finishing later (an asynchronous refund); look it up to learn the result.
    case pending
    /// Refused before processing (HTTP 503, 429): nothing happened; retry with the same reference.
    case notProcessed(reason: String)
    /// No usable answer (timeout, HTTP 500): it may or may not have happened. Never treat
    /// this as a failure: reconcile with `lookup`.
    case unknown(reason: String)
}

/// What the processor granted on approval.
public struct ProcessorApproval: Sendable, Equatable {
    /// The amount the processor approved/captured/refunded (compare with what was asked).
    public let amount: Amount
    /// The processor's own id for the operation.
    public let processorID: String
    /// For authorizations: the last moment it can be captured.
    public let expiresAt: Date?

    public init(amount: Amount, processorID: String, expiresAt: Date? = nil) {
        self.amount = amount
        self.processorID = processorID
        self.expiresAt = expiresAt
    }
}

/// A processor decline code, Stripe style, with what a payer may be told.
public struct DeclineCode: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public static let genericDecline = DeclineCode("generic_decline")
    public static let insufficientFunds = DeclineCode("insufficient_funds")
    public static let lostCard = DeclineCode("lost_card")
    public static let stolenCard = DeclineCode("stolen_card")
    public static let expiredCard = DeclineCode("expired_card")
    public static let processingError = DeclineCode("processing_error")
    public static let doNotHonor = DeclineCode("do_not_honor")
    /// The security code did not match (Stripe's 4000000000000127).
    public static let incorrectCvc = DeclineCode("incorrect_cvc")
    /// Too many attempts, or over the card's amount limit (Stripe's 4000000000006975).
    public static let cardVelocityExceeded = DeclineCode("card_velocity_exceeded")
    /// Blocked as fraud (Stripe Radar's block, 4100000000000019).
    public static let fraudulent = DeclineCode("fraudulent")
    /// An off-session payment with a card whose issuer insists on 3-D Secure: the payer must
    /// come back and pay on session.
    public static let authenticationRequired = DeclineCode("authentication_required")
    public static let authenticationFailed = DeclineCode("authentication_failed")
    public static let invalidCryptogram = DeclineCode("invalid_cryptogram")
    public static let expiredCryptogram = DeclineCode("expired_cryptogram")
    public static let authorizationExpired = DeclineCode("authorization_expired")
    public static let captureFailed = DeclineCode("capture_failed")
    public static let voidFailed = DeclineCode("void_failed")
    public static let refundFailed = DeclineCode("refund_failed")

    // Refusals of the request itself rather than of the card: the operation broke one of the
    // processor's rules (Stripe answers these with a 400 or 402). Never retryable as is.
    /// The request is malformed (empty reference, unknown mock scenario): fix the caller.
    public static let invalidRequest = DeclineCode("invalid_request")
    /// The amount is zero or negative.
    public static let invalidAmount = DeclineCode("invalid_amount")
    /// The currency differs from the authorization's.
    public static let currencyMismatch = DeclineCode("currency_mismatch")
    /// More than can still be captured or refunded.
    public static let amountTooLarge = DeclineCode("amount_too_large")
    /// No authorization has this reference.
    public static let authorizationNotFound = DeclineCode("authorization_not_found")
    /// The authorization was declined or still waits for its 3-D Secure challenge.
    public static let authorizationNotApproved = DeclineCode("authorization_not_approved")
    /// Already captured: it cannot be voided or captured again.
    public static let alreadyCaptured = DeclineCode("already_captured")
    /// Already voided: nothing left to capture or refund.
    public static let alreadyVoided = DeclineCode("already_voided")
    /// Refund before capture: void the authorization instead.
    public static let notCaptured = DeclineCode("not_captured")
    /// The reference (idempotency key) was used before with different parameters.
    public static let idempotencyKeyReused = DeclineCode("idempotency_key_reused")

    /// Declines after which the payer may simply try another card (soft declines).
    public var isRetryableWithAnotherCard: Bool {
        [.insufficientFunds, .genericDecline, .doNotHonor, .expiredCard, .processingError, .authenticationFailed]
            .contains(self)
    }

    /// What the payer is told. Lost and stolen cards get the generic message: telling a
    /// fraudster the card was reported would help them.
    public var payerMessage: String {
        switch self {
        case .insufficientFunds: "Your card has insufficient funds. Try another card."
        case .expiredCard: "Your card has expired. Try another card."
        case .processingError: "An error occurred while processing your card. Try again."
        case .authenticationFailed: "Your bank could not verify this payment. Try another card."
        case .invalidCryptogram, .expiredCryptogram: "This payment could not be completed. Try again."
        default: "Your card was declined. Try another card."
        }
    }

    public var description: String { rawValue }
}

/// What a lookup found.
public enum LookupResult: Sendable, Equatable {
    /// The processor has the operation, with its final or current outcome.
    case found(ProcessorOutcome)
    /// The processor never received it.
    case notFound
    /// The lookup itself got no answer; try again later.
    case unavailable(reason: String)
}
