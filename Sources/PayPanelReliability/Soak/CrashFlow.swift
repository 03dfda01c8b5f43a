import PayPanel
/// The payment flows the crash soak runs, each a list of steps a merchant's server would take
/// one request at a time. Each step is run only when the intent is in the state it needs, so a
/// flow picks up after a crash the way a real client retries: whatever already happened is
/// not done again.
public enum CrashFlow: String, Sendable, CaseIterable {
    /// Card, automatic capture, two partial refunds.
    case automaticCard = "automatic-card"
    /// Manual capture of part of the authorization, then a refund.
    case manualCaptureRefund = "manual-capture-refund"
    /// Manual capture, voided instead.
    case manualVoid = "manual-void"
    /// HTTP 500 after the processor approved: the outcome is unknown until reconciliation.
    case unknownThenApproved = "unknown-then-approved"
    /// The processor never answers but approves; reconciliation learns it.
    case timeoutThenApproved = "timeout-then-approved"
    /// The capture goes through but its answer is lost.
    case captureTimeout = "capture-timeout"
    /// The refund is accepted and settles a minute later.
    case asyncRefund = "async-refund"
    /// An Apple Pay token (sealed by `paypanel token seal`), automatic capture, a refund.
    case applePayToken = "apple-pay-token"
    /// A declined card, then a good one.
    case declineThenRetry = "decline-then-retry"

    /// One request of a flow.
    public enum Step: Sendable, Equatable, CustomStringConvertible {
        case authorizeCard(number: String, holder: String?)
        case authorizeToken(card: String)
        /// Amount as typed on the command line; nil captures everything.
        case capture(amount: String?)
        case void
        /// Amount as typed; nil refunds what is left.
        case refund(amount: String?)

        /// The processor operations this step can reach (for arming fault points).
        public var operations: Set<ProcessorOperation> {
            switch self {
            case .authorizeCard, .authorizeToken: [.authorize, .capture, .void]  // automatic capture; reversal
            case .capture: [.capture]
            case .void: [.void]
            case .refund: [.refund]
            }
        }

        public var description: String {
            switch self {
            case .authorizeCard(_, let holder): "authorize card" + (holder.map { " (\($0))" } ?? "")
            case .authorizeToken: "authorize token"
            case .capture(let amount): "capture \(amount ?? "all")"
            case .void: "void"
            case .refund(let amount): "refund \(amount ?? "rest")"
            }
        }
    }

    /// How the flow's intent captures.
    public var captureMethod: CaptureMethod {
        switch self {
        case .manualCaptureRefund, .manualVoid, .timeoutThenApproved, .captureTimeout: .manual
        default: .automatic
        }
    }

    /// The flow's steps, in order. The intent is always 10.00 USD.
    public var steps: [Step] {
        let visa = "4242424242424242"
        switch self {
        case .automaticCard: return [.authorizeCard(number: visa, holder: nil), .refund(amount: "4.00"), .refund(amount: nil)]
        case .manualCaptureRefund:
            return [.authorizeCard(number: "5555555555554444", holder: nil), .capture(amount: "6.00"), .refund(amount: "2.00")]
        case .manualVoid: return [.authorizeCard(number: visa, holder: nil), .void]
        case .unknownThenApproved: return [.authorizeCard(number: visa, holder: "HTTP_500_AFTER"), .refund(amount: nil)]
        case .timeoutThenApproved:
            return [.authorizeCard(number: visa, holder: "TIMEOUT_THEN_APPROVED"), .capture(amount: nil), .refund(amount: "1.00")]
        case .captureTimeout: return [.authorizeCard(number: visa, holder: "CAPTURE_TIMEOUT"), .capture(amount: nil), .refund(amount: nil)]
        case .asyncRefund: return [.authorizeCard(number: visa, holder: "REFUND_ASYNC"), .refund(amount: "10.00")]
        case .applePayToken: return [.authorizeToken(card: visa), .refund(amount: "3.00")]
        case .declineThenRetry:
            return [.authorizeCard(number: "4000000000000002", holder: nil), .authorizeCard(number: visa, holder: nil), .refund(amount: nil)]
        }
    }

    /// A flow that reaches fault point `name` (`before-capture`, `after-processor-call`, …).
    static func reaching(_ name: String, choice: Int) -> CrashFlow {
        let candidates: [CrashFlow]
        if name.hasSuffix("-void") {
            candidates = [.manualVoid]
        } else if name.hasSuffix("-capture") {
            candidates = [.manualCaptureRefund, .automaticCard, .captureTimeout, .applePayToken]
        } else if name.hasSuffix("-refund") {
            candidates = [.automaticCard, .asyncRefund, .manualCaptureRefund, .applePayToken]
        } else {
            candidates = CrashFlow.allCases
        }
        return candidates[choice % candidates.count]
    }
}
