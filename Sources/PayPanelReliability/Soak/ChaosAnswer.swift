import PayPanel

/// One call a chaos-soak client made and what it was told: the HTTP status (0 when no answer
/// came: the connection was refused, reset or timed out) and what the body said. Never card
/// data or secrets: only ids, statuses and amounts.
public struct ChaosAnswer: Sendable, Equatable {
    /// Which call.
    public enum Call: String, Sendable, CaseIterable {
        /// `POST /v1/payment_intents`
        case create
        /// `POST /v1/payment_intents/{id}/confirm` with a card
        case confirm
        /// `POST /v1/payment_intents/{id}/capture`
        case capture
        /// `POST /v1/payment_intents/{id}/cancel`
        case cancel
        /// `POST /v1/refunds`
        case refund
        /// `POST /v1/checkouts`
        case checkout
        /// The device's `POST /v1/checkouts/{id}/pay` with a card
        case pay
    }

    public var client: Int
    /// The client's step number: every try of one step (the same `Idempotency-Key`) shares it,
    /// and a later step has a higher one.
    public var step: Int
    public var call: Call
    /// The intent the call is about (for a pay: the one its answer names, when it named one).
    public var intentID: String?
    /// 0: no answer.
    public var httpStatus: Int
    /// The body's status: the intent's (`requires_capture`, `succeeded`…), the refund's, or
    /// for a pay the sheet's (`success`, `failure`).
    public var status: String?
    /// The attempt the answer is about: the confirm's (from its body), the pay's (the attempt
    /// it opened, read right after the answer).
    public var attemptID: String?
    public var refundID: String?
    /// A refund's amount, or the intent's `amount_captured` after a confirm or capture.
    public var amount: Int64?
    /// The error's code for a 4xx/5xx (`card_declined`, `idempotency_key_in_use`…).
    public var errorCode: String?

    public init(
        client: Int, step: Int, call: Call, intentID: String?, httpStatus: Int, status: String? = nil, attemptID: String? = nil,
        refundID: String? = nil, amount: Int64? = nil, errorCode: String? = nil
    ) {
        self.client = client
        self.step = step
        self.call = call
        self.intentID = intentID
        self.httpStatus = httpStatus
        self.status = status
        self.attemptID = attemptID
        self.refundID = refundID
        self.amount = amount
        self.errorCode = errorCode
    }

    /// How the report counts it: `confirm 200 requires_capture`, `pay 200 failure`,
    /// `refund 402 card_declined`, `capture no answer`.
    public var kind: String {
        guard httpStatus != 0 else { return "\(call.rawValue) no answer" }
        let detail = httpStatus < 300 ? status : errorCode
        return "\(call.rawValue) \(httpStatus)" + (detail.map { " \($0)" } ?? "")
    }

    /// Where the report names it: `client 3 step 17: confirm of pi_… answered 200 requires_capture`.
    var label: String {
        let answered = httpStatus == 0 ? "got no answer" : "answered " + kind.dropFirst(call.rawValue.count + 1)
        return "client \(client) step \(step): \(call.rawValue)\(intentID.map { " of \($0)" } ?? "")\(attemptID.map { " (attempt \($0))" } ?? "")\(refundID.map { " (refund \($0))" } ?? "") \(answered)"
    }
}
