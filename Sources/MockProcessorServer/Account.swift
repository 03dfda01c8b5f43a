import Foundation
import PayPanel

/// One `sk_test_…` key's isolated world: its intents, refunds, idempotency keys, scripted card
/// chains and test clock. Parallel test suites with different keys never see each other's data.
struct Account: Sendable {
    /// `acct_` + 16 hex digits of SHA-256(key): the key itself is never kept.
    let tag: String
    var intents: [String: StoredIntent] = [:]
    var intentOrder: [String] = []
    var refunds: [String: StoredRefund] = [:]
    var refundOrder: [String] = []
    var idempotency: [String: IdempotencyRecord] = [:]
    /// Seconds the account's test clock is ahead of the server's clock.
    var clockOffset: TimeInterval = 0
    /// `cardKey(number)` → the remaining scripted trigger steps (the last one repeats).
    var cardChains: [String: CardChain] = [:]

    init(tag: String) {
        self.tag = tag
    }

    /// Every ledger reference of this account starts with this (`acct_…/`).
    var ledgerPrefix: String { tag + "/" }

    /// Chains are kept under the SHA-256 of the card number, so no number reaches a snapshot.
    static func cardKey(_ digits: String) -> String {
        SHA256.hash(digits).hexString
    }

    static func tag(forKey key: String) -> String {
        "acct_" + String(SHA256.hash(key).hexString.prefix(16))
    }
}

/// A per-card scripted chain: each authorization with the card takes the next step.
struct CardChain: Sendable {
    let steps: [String]
    var next = 0

    mutating func take() -> String {
        let step = steps[min(next, steps.count - 1)]
        next += 1
        return step
    }
}

/// What an idempotency key holds: the request it was first used with and, once answered, the
/// answer to replay.
struct IdempotencyRecord: Sendable {
    let fingerprint: String
    let createdAt: Date
    var response: StoredResponse?
}

/// A response kept for replay.
struct StoredResponse: Sendable {
    let status: Int
    let body: [UInt8]
}

/// The card a payment method stands for. The number is kept only in memory, only for the
/// intent's next authorization; it is never written to a file or a response.
struct PaymentMethodCard: Sendable {
    let id: String
    let method: PaymentMethodData
    let brand: String
    let expMonth: Int?
    let expYear: Int?
}

/// A PaymentIntent as the mock keeps it.
struct StoredIntent: Sendable {
    let id: String
    let clientSecret: String
    let amount: Int64
    let currency: Currency
    let captureMethod: String
    var description: String?
    var metadata: [(String, String)]
    let created: Date
    var status: String
    var paymentMethod: PaymentMethodCard?
    /// The payment method's id after a restart, when the card itself is no longer known.
    var paymentMethodID: String?
    /// How many authorizations were made (each confirm after a failure is a new one).
    var authorizations = 0
    var amountCapturable: Int64 = 0
    var amountReceived: Int64 = 0
    var latestCharge: String?
    var lastPaymentError: JSONValue?
    var canceledAt: Date?
    var cancellationReason: String?
    var captureBefore: Date?
    var refunded: Int64 = 0

    /// The ledger reference of the current authorization: `acct_…/pi_…/n`.
    func ledgerReference(accountPrefix: String) -> String {
        "\(accountPrefix)\(id)/\(authorizations)"
    }
}

/// A Refund as the mock keeps it.
struct StoredRefund: Sendable {
    let id: String
    let paymentIntent: String
    let charge: String?
    let amount: Int64
    let currency: Currency
    var status: String
    var failureReason: String?
    var metadata: [(String, String)]
    let created: Date
    let ledgerReference: String
}
