/// How the checkout service talks to the processor and decides: the state machine's policy
/// and the client-side timeout of processor calls.
public struct CheckoutConfiguration: Sendable {
    /// Limits and timings of the state machine (sheet deadline, capture window, grace…).
    public var policy: PaymentPolicy
    /// How long a processor call may take before its outcome counts as unknown. Calls for an
    /// Apple Pay sheet get at most the time left until the sheet's deadline.
    public var processorTimeout: Duration

    public init(policy: PaymentPolicy = .standard, processorTimeout: Duration = .seconds(30)) {
        self.policy = policy
        self.processorTimeout = processorTimeout
    }
}

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

/// Where an intent stands after a checkout operation, read back from the database (so it is
/// right even when another process — `paypanel reconcile` — moved it meanwhile).
public struct PaymentOutcome: Sendable, JSONRepresentable {
    public let intent: PaymentIntent
    /// The attempt the operation was about (the new one for `authorize`).
    public let attempt: Attempt?
    /// The refund the operation was about.
    public let refund: Refund?

    /// What the Apple Pay sheet was told, when one waits on the attempt.
    public var sheetAnswer: SheetAnswer? { attempt?.sheet?.answer }

    /// True when the intent now waits for the cardholder's 3-D Secure challenge.
    public var requiresChallenge: Bool { intent.status == .requiresAction }

    /// The failure of this operation's attempt, if it failed.
    public var failure: PaymentFailure? { attempt?.failure ?? (attempt == nil ? intent.lastError : nil) }

    /// `{"intent": {...}, "attempt": {...}|null, "refund": {...}|null, "sheetAnswer": "success"|"failure"|null}`.
    public var json: JSONValue {
        .orderedObject([
            ("intent", intent.json),
            ("attempt", attempt?.json ?? .null),
            ("refund", refund?.json ?? .null),
            ("sheetAnswer", sheetAnswer.map { .string($0.rawValue) } ?? .null),
        ])
    }
}
