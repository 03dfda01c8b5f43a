import PayPanel

/// One behaviour the mock processor can be told to show (DESIGN §5). Each has a name, usable as
/// an explicit scenario, as a cardholder name, or as a step of a chain (`HTTP_503|APPROVE`);
/// some are also chosen by a Stripe test card number (`TestCards`).
///
/// The enum is closed on purpose: every switch over it below is exhaustive, so a new trigger
/// cannot be added without its behaviour and its line in the trigger table.
public enum MockTrigger: Sendable, Hashable, CustomStringConvertible {
    case approve
    case genericDecline
    case insufficientFunds
    case lostCard
    case stolenCard
    case expiredCard
    case processingError
    case doNotHonor
    case incorrectCvc
    case cardVelocityExceeded
    /// Blocked as fraud (Stripe Radar's block).
    case fraudulent
    /// Declined `authentication_required`: what an off-session payment gets from a card that
    /// needs 3-D Secure (`processor serve` picks it for `off_session=true`; also usable by name).
    case authenticationRequired
    /// 3-D Secure challenge; approved when passed.
    case challenge
    /// 3-D Secure challenge; declined `insufficient_funds` even when passed (Stripe's 4000008260003178).
    case challengeThenInsufficientFunds
    /// 3-D Secure challenge; declined `generic_decline` even when passed (Stripe's 4000008400001629).
    case challengeThenGenericDecline
    case timeoutThenApproved
    case timeoutThenDeclined
    case timeoutThenNotReceived
    case http500BeforeProcessing
    case http500AfterProcessing
    case http503
    case http429
    /// Approved, but the answer takes `seconds` (1 to `MockTrigger.maximumSlowSeconds`).
    case slow(seconds: Int)
    case captureFail
    case captureTimeout
    /// Every capture is declined `capture_failed`, and its answer is lost: only a lookup or the
    /// processor's webhook tells the caller.
    case captureFailLate
    case voidFail
    case refundAsync
    case refundFail

    /// The longest `SLOW_<n>S`: ten minutes is far past any caller's timeout.
    public static let maximumSlowSeconds = 600

    /// Every trigger once, in table order (`SLOW_<n>S` stands for the whole family).
    public static let catalog: [MockTrigger] = [
        .approve, .genericDecline, .insufficientFunds, .lostCard, .stolenCard, .expiredCard, .processingError,
        .doNotHonor, .incorrectCvc, .cardVelocityExceeded, .fraudulent, .authenticationRequired, .challenge, .challengeThenInsufficientFunds, .challengeThenGenericDecline,
        .timeoutThenApproved, .timeoutThenDeclined, .timeoutThenNotReceived,
        .http500BeforeProcessing, .http500AfterProcessing, .http503, .http429, .slow(seconds: 5),
        .captureFail, .captureTimeout, .captureFailLate, .voidFail, .refundAsync, .refundFail,
    ]

    /// The name used in scenarios, holder names and chains.
    public var name: String {
        switch self {
        case .approve: "APPROVE"
        case .genericDecline: "GENERIC_DECLINE"
        case .insufficientFunds: "INSUFFICIENT_FUNDS"
        case .lostCard: "LOST_CARD"
        case .stolenCard: "STOLEN_CARD"
        case .expiredCard: "EXPIRED_CARD"
        case .processingError: "PROCESSING_ERROR"
        case .doNotHonor: "DO_NOT_HONOR"
        case .incorrectCvc: "INCORRECT_CVC"
        case .cardVelocityExceeded: "CARD_VELOCITY_EXCEEDED"
        case .fraudulent: "FRAUDULENT"
        case .authenticationRequired: "AUTHENTICATION_REQUIRED"
        case .challenge: "CHALLENGE"
        case .challengeThenInsufficientFunds: "CHALLENGE_THEN_INSUFFICIENT_FUNDS"
        case .challengeThenGenericDecline: "CHALLENGE_THEN_GENERIC_DECLINE"
        case .timeoutThenApproved: "TIMEOUT_THEN_APPROVED"
        case .timeoutThenDeclined: "TIMEOUT_THEN_DECLINED"
        case .timeoutThenNotReceived: "TIMEOUT_THEN_NOT_RECEIVED"
        case .http500BeforeProcessing: "HTTP_500_BEFORE"
        case .http500AfterProcessing: "HTTP_500_AFTER"
        case .http503: "HTTP_503"
        case .http429: "HTTP_429"
        case .slow(let seconds): "SLOW_\(seconds)S"
        case .captureFail: "CAPTURE_FAIL"
        case .captureTimeout: "CAPTURE_TIMEOUT"
        case .captureFailLate: "CAPTURE_FAIL_LATE"
        case .voidFail: "VOID_FAIL"
        case .refundAsync: "REFUND_ASYNC"
        case .refundFail: "REFUND_FAIL"
        }
    }

    /// The name as the trigger table shows it: `SLOW_<n>S` for the slow family.
    public var tableName: String {
        if case .slow = self { return "SLOW_<n>S" }
        return name
    }

    public var description: String { name }

    /// The trigger with this name (case-insensitive, surrounding spaces ignored), or nil.
    public init?(name text: String) {
        let name = text.trimmingWhitespace().uppercased()
        if let fixed = MockTrigger.catalog.first(where: { $0.name == name }), !fixed.isSlow {
            self = fixed
            return
        }
        // SLOW_<n>S with n in 1...600, written without sign or leading zeros.
        guard name.hasPrefix("SLOW_"), name.hasSuffix("S"), name.count > 6 else { return nil }
        let digits = name.dropFirst(5).dropLast()
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), digits.first != "0", digits.count <= 3,
            let seconds = Int(digits), (1...MockTrigger.maximumSlowSeconds).contains(seconds)
        else { return nil }
        self = .slow(seconds: seconds)
    }

    var isSlow: Bool {
        if case .slow = self { return true }
        return false
    }

    // MARK: - What the trigger does

    /// What happens to an authorization this trigger governs.
    var effect: TriggerEffect {
        switch self {
        case .approve, .captureFail, .captureTimeout, .captureFailLate, .voidFail, .refundAsync, .refundFail:
            .processed(.approved, answer: .immediate)
        case .genericDecline: .processed(.declined(.genericDecline), answer: .immediate)
        case .insufficientFunds: .processed(.declined(.insufficientFunds), answer: .immediate)
        case .lostCard: .processed(.declined(.lostCard), answer: .immediate)
        case .stolenCard: .processed(.declined(.stolenCard), answer: .immediate)
        case .expiredCard: .processed(.declined(.expiredCard), answer: .immediate)
        case .processingError: .processed(.declined(.processingError), answer: .immediate)
        case .doNotHonor: .processed(.declined(.doNotHonor), answer: .immediate)
        case .incorrectCvc: .processed(.declined(.incorrectCvc), answer: .immediate)
        case .cardVelocityExceeded: .processed(.declined(.cardVelocityExceeded), answer: .immediate)
        case .fraudulent: .processed(.declined(.fraudulent), answer: .immediate)
        case .authenticationRequired: .processed(.declined(.authenticationRequired), answer: .immediate)
        case .challenge, .challengeThenInsufficientFunds, .challengeThenGenericDecline:
            .processed(.challengeRequired, answer: .immediate)
        case .timeoutThenApproved: .processed(.approved, answer: .lost)
        case .timeoutThenDeclined: .processed(.declined(.genericDecline), answer: .lost)
        case .timeoutThenNotReceived: .neverArrives
        case .http500BeforeProcessing: .failsBeforeProcessing
        case .http500AfterProcessing: .processed(.approved, answer: .serverError)
        case .http503: .refused(reason: "HTTP 503 Service Unavailable: not processed; retry with the same reference")
        case .http429: .refused(reason: "HTTP 429 Too Many Requests: not processed; retry with the same reference later")
        case .slow(let seconds): .processed(.approved, answer: .delayed(.seconds(seconds)))
        }
    }

    /// The result of completing this trigger's 3-D Secure challenge; nil when it has none.
    func challengeResult(passed: Bool) -> ProcessedResult? {
        switch self {
        case .challenge: passed ? .approved : .declined(.authenticationFailed)
        case .challengeThenInsufficientFunds: passed ? .declined(.insufficientFunds) : .declined(.authenticationFailed)
        case .challengeThenGenericDecline: passed ? .declined(.genericDecline) : .declined(.authenticationFailed)
        default: nil
        }
    }
}

/// How a trigger treats an authorization request.
enum TriggerEffect: Equatable {
    /// Refused before processing (HTTP 503/429): the caller sees `.notProcessed`.
    case refused(reason: String)
    /// HTTP 500 before processing: the caller cannot tell, sees `.unknown`; nothing recorded.
    case failsBeforeProcessing
    /// The request is lost on the way: no answer (the caller's timeout runs out), nothing recorded.
    case neverArrives
    /// Processed and recorded with `result`; the answer travels back through `answer`.
    case processed(ProcessedResult, answer: AnswerChannel)
}

/// What the processor decided and records.
enum ProcessedResult: Equatable {
    case approved
    case declined(DeclineCode)
    case challengeRequired
}

/// How the answer to a processed request reaches the caller.
enum AnswerChannel: Equatable {
    /// After the configured latency.
    case immediate
    /// After the latency plus this much (SLOW_<n>S); past the caller's timeout it is `.unknown`.
    case delayed(Duration)
    /// Never: the caller's timeout runs out and it sees `.unknown`.
    case lost
    /// An HTTP 500 although the operation went through: `.unknown`.
    case serverError
}

/// A scenario, holder name or chain step that names no trigger.
public struct MockTriggerError: PayPanelError, Equatable {
    /// The whole text as given.
    public let text: String
    /// The offending step, when the text is a chain.
    public let step: String?

    public var code: String { "unknown_trigger" }

    public var message: String {
        let known = "see 'paypanel processor triggers' for the names, such as APPROVE, HTTP_503 or SLOW_5S"
        guard let step else {
            return "\(JSONWriter.quoted(text)) is not a mock-processor trigger: \(known)"
        }
        if step.trimmingWhitespace().isEmpty {
            return "trigger chain \(JSONWriter.quoted(text)) has an empty step: write names separated by single '|', like HTTP_503|APPROVE"
        }
        return "trigger chain \(JSONWriter.quoted(text)): \(JSONWriter.quoted(step)) is not a trigger: \(known)"
    }
}
