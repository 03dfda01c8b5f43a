import PayPanel

/// The payment flows of the processor crash soak, each a list of calls a merchant's client makes
/// to `paypanel serve` (which calls `paypanel processor serve` over HTTP). Every step runs only
/// when the intent is in the state it needs, so after a crash the flow picks up where the
/// intent is, the way a retrying client would: what already happened is not done again.
public enum ProcessorSoakFlow: String, Sendable, CaseIterable {
    /// Automatic capture, a partial refund, then the rest.
    case automaticCard = "automatic-card"
    /// Manual capture of part of the authorization, then a refund.
    case manualCaptureRefund = "manual-capture-refund"
    /// Manual capture, canceled (voided) instead.
    case manualVoid = "manual-void"
    /// Processed, then the connection is dropped before the answer (DROP_AFTER).
    case droppedAnswer = "dropped-answer"
    /// The answer comes later than serve's processor timeout (SLOW_2S with a 1 s timeout).
    case slowerThanTimeout = "slower-than-timeout"
    /// The processor holds the connection and approves (TIMEOUT_THEN_APPROVED).
    case heldThenApproved = "held-then-approved"
    /// 503 with Retry-After: not processed; the payer retries with another card.
    case unavailableThenRetry = "unavailable-then-retry"
    /// 429 with Retry-After: not processed; the payer retries with another card.
    case rateLimitedThenRetry = "rate-limited-then-retry"
    /// A declined card, then a good one.
    case declineThenRetry = "decline-then-retry"

    /// One call of a flow.
    public enum Step: Sendable, Equatable {
        /// `POST /v1/payment_intents/{id}/confirm` with a card (and a holder name: a trigger).
        case confirm(number: String, holder: String?)
        /// `POST …/capture`; nil captures everything.
        case capture(minorUnits: Int64?)
        /// `POST …/cancel` of an authorized intent.
        case void
        /// `POST /v1/refunds` until `upTo` is refunded in total (nil: everything captured).
        case refund(upTo: Int64?)

        /// `confirm`, `capture`, `void`, `refund`: for kill timing.
        var kind: String {
            switch self {
            case .confirm: "confirm"
            case .capture: "capture"
            case .void: "void"
            case .refund: "refund"
            }
        }
    }

    /// The network fault each flow provokes at the processor, or nil.
    public var networkFault: String? {
        switch self {
        case .droppedAnswer: "DROP_AFTER"
        case .slowerThanTimeout: "SLOW_2S"
        case .heldThenApproved: "TIMEOUT_THEN_APPROVED"
        case .unavailableThenRetry: "HTTP_503"
        case .rateLimitedThenRetry: "HTTP_429"
        default: nil
        }
    }

    /// `manual` or `automatic`.
    public var captureMethod: String {
        switch self {
        case .automaticCard, .unavailableThenRetry, .rateLimitedThenRetry, .declineThenRetry: "automatic"
        default: "manual"
        }
    }

    /// The flows that provoke a network fault, in a fixed order (each gets a processor kill).
    public static var networkFaultFlows: [ProcessorSoakFlow] { allCases.filter { $0.networkFault != nil } }

    /// The flow's steps. The intent is always 10.00 USD (1000 minor units).
    public var steps: [Step] {
        let visa = "4242424242424242"
        switch self {
        case .automaticCard: return [.confirm(number: visa, holder: nil), .refund(upTo: 400), .refund(upTo: nil)]
        case .manualCaptureRefund: return [.confirm(number: "5555555555554444", holder: nil), .capture(minorUnits: 600), .refund(upTo: 200)]
        case .manualVoid: return [.confirm(number: visa, holder: nil), .void]
        case .droppedAnswer, .slowerThanTimeout, .heldThenApproved:
            return [.confirm(number: visa, holder: networkFault), .capture(minorUnits: nil), .refund(upTo: 300)]
        case .unavailableThenRetry, .rateLimitedThenRetry:
            return [.confirm(number: visa, holder: networkFault), .confirm(number: visa, holder: nil), .refund(upTo: nil)]
        case .declineThenRetry: return [.confirm(number: "4000000000000002", holder: nil), .confirm(number: visa, holder: nil), .refund(upTo: nil)]
        }
    }

    /// A flow that reaches serve's fault point `name` (`before-capture`, `after-processor-call`, …).
    static func reaching(_ name: String, choice: Int) -> ProcessorSoakFlow {
        let candidates: [ProcessorSoakFlow]
        if name.hasSuffix("-void") {
            candidates = [.manualVoid]
        } else if name.hasSuffix("-capture") {
            candidates = [.manualCaptureRefund, .automaticCard, .droppedAnswer]
        } else if name.hasSuffix("-refund") {
            candidates = [.automaticCard, .manualCaptureRefund, .declineThenRetry]
        } else {
            candidates = allCases
        }
        return candidates[choice % candidates.count]
    }
}

extension ProcessorSoakFlow.Step {
    /// The request for this step on `intent`, or nil when the intent is not in the state it needs.
    func request(on intent: JSONValue, id: String) -> (method: String, path: String, json: String)? {
        let status = intent["status"]?.stringValue ?? ""
        switch self {
        case .confirm(let number, let holder):
            guard status == "requires_payment_method" else { return nil }
            let holderText = holder.map { #","holder_name":"\#($0)""# } ?? ""
            return ("POST", "/v1/payment_intents/\(id)/confirm",
                    #"{"payment_method":{"type":"card","number":"\#(number)","exp_month":12,"exp_year":2030\#(holderText)}}"#)
        case .capture(let minor):
            guard status == "requires_capture" else { return nil }
            return ("POST", "/v1/payment_intents/\(id)/capture", minor.map { #"{"amount":\#($0)}"# } ?? "{}")
        case .void:
            guard status == "requires_capture" else { return nil }
            return ("POST", "/v1/payment_intents/\(id)/cancel", "{}")
        case .refund(let upTo):
            let captured = intent["amount_captured"]?.int64Value ?? 0
            let refunded = intent["amount_refunded"]?.int64Value ?? 0
            let refundable = intent["amount_refundable"]?.int64Value ?? 0
            let amount = min((upTo.map { min($0, captured) } ?? captured) - refunded, refundable)
            guard status == "succeeded", amount > 0 else { return nil }
            return ("POST", "/v1/refunds", #"{"payment_intent":"\#(id)","amount":\#(amount)}"#)
        }
    }
}
