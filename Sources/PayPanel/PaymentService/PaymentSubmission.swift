import Foundation

/// A card or Apple Pay token submitted for an intent: one new attempt.
public struct PaymentSubmission: Sendable {
    public let intentID: String
    /// The card (Pay in app) or the decrypted token (Apple Pay). Held in memory only for the
    /// processor call: it is never stored.
    public let method: PaymentMethodData
    public let source: AttemptSource
    /// The amount the token was made for (a card pays the intent's amount): it must equal the
    /// intent's amount and currency.
    public let amount: Amount?
    /// The Apple Pay token's transactionId: recorded with the attempt, a replay is refused.
    public let tokenTransactionID: String?
    /// True when an Apple Pay sheet waits for the answer (30 s budget, answered at ~25 s).
    public let answersPaymentSheet: Bool
    /// A mock-processor scenario to force (tests); real processors ignore it.
    public let scenario: String?

    public init(
        intentID: String, method: PaymentMethodData, source: AttemptSource, amount: Amount? = nil,
        tokenTransactionID: String? = nil, answersPaymentSheet: Bool = false, scenario: String? = nil
    ) {
        self.intentID = intentID
        self.method = method
        self.source = source
        self.amount = amount
        self.tokenTransactionID = tokenTransactionID
        self.answersPaymentSheet = answersPaymentSheet
        self.scenario = scenario
    }
}
