import Foundation

extension PaymentDetails {
    /// Details built elsewhere than the ledger, without a history: a client of the HTTP API
    /// reading an intent back from `GET /v1/payment_intents/{id}` (`paypanel checkout --server`).
    public init(intent: PaymentIntent, attempts: [Attempt], refunds: [Refund]) {
        self.init(intent: intent, attempts: attempts, refunds: refunds, events: [])
    }
}
