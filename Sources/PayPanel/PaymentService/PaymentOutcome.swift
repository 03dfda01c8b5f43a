import Foundation

/// Where an intent stands after a checkout operation: the state the operation's last
/// transition committed. Under an idempotency key a retry gets the first run's outcome back,
/// decoded from the stored snapshot, with `replayed` set.
public struct PaymentOutcome: Sendable, JSONRepresentable {
    public let intent: PaymentIntent
    /// The attempt the operation was about (the new one for `authorize`).
    public let attempt: Attempt?
    /// The refund the operation was about.
    public let refund: Refund?
    /// True when this is the stored result of an earlier run with the same idempotency key.
    public private(set) var replayed = false
    /// When the idempotency key was first used (the original run), for replays.
    public private(set) var firstUsedAt: Date?

    public init(intent: PaymentIntent, attempt: Attempt?, refund: Refund?) {
        self.intent = intent
        self.attempt = attempt
        self.refund = refund
    }

    /// The intent as `machine` holds it, with the attempt `attemptID` (nil: none).
    init(_ machine: PaymentStateMachine, attemptID: String?) {
        self.init(intent: machine.intent, attempt: machine.attempts.first { $0.id == attemptID }, refund: nil)
    }

    /// The intent as `machine` holds it, with the refund `refundID`.
    init(_ machine: PaymentStateMachine, refundID: String) {
        self.init(intent: machine.intent, attempt: nil, refund: machine.refunds.first { $0.id == refundID })
    }

    /// The outcome stored under an idempotency key, replayed.
    package init(replayOf intent: PaymentIntent, attempt: Attempt?, refund: Refund?, firstUsedAt: Date) {
        self.init(intent: intent, attempt: attempt, refund: refund)
        self.replayed = true
        self.firstUsedAt = firstUsedAt
    }

    /// The outcome stored under an idempotency key as JSON (`json`, the form keys were stored
    /// in before results were typed), replayed.
    public init(replayOf json: JSONValue, firstUsedAt: Date) throws(PaymentSnapshotError) {
        guard let intentJSON = json["intent"] else { throw PaymentSnapshotError(object: "outcome", field: "intent") }
        self.intent = try PaymentIntent(snapshot: intentJSON)
        if let attemptJSON = Self.present(json["attempt"]) {
            self.attempt = try Attempt(snapshot: attemptJSON)
        } else {
            self.attempt = nil
        }
        if let refundJSON = Self.present(json["refund"]) {
            self.refund = try Refund(snapshot: refundJSON)
        } else {
            self.refund = nil
        }
        self.replayed = true
        self.firstUsedAt = firstUsedAt
    }

    /// `value` unless it is missing or JSON null.
    private static func present(_ value: JSONValue?) -> JSONValue? {
        guard let value, case .object = value else { return nil }
        return value
    }

    /// Why the caller should treat this outcome as a failure, nil for a success: a failed
    /// attempt or refund, a sheet answered with failure, an unknown outcome. Approved,
    /// captured, waiting for a challenge, a refund accepted and still pending are successes.
    public var failureReport: OutcomeFailure? {
        if let refund, refund.status == .failed {
            return OutcomeFailure(code: "refund_failed", message: "the refund \(refund.id) failed (\(refund.failureCode ?? "unknown reason"))")
        }
        if let attempt, attempt.status == .failed, let failure = attempt.failure {
            return OutcomeFailure(code: failure.code.rawValue, message: failure.message)
        }
        if sheetAnswer == .failure {
            return OutcomeFailure(
                code: "sheet_deadline_exceeded",
                message: "the Apple Pay sheet was answered with failure at its deadline because the processor had not answered; a late approval will be reversed")
        }
        if intent.status == .processing, let inFlight = intent.inFlight, inFlight.outcomeUnknownSince != nil {
            return OutcomeFailure(
                code: "outcome_unknown",
                message: "the processor gave no usable answer to the \(inFlight.call.operationName) of \(inFlight.attemptID); the intent stays processing until reconciliation learns the outcome")
        }
        return nil
    }

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

/// Why an outcome counts as a failure: a stable code and a sentence for people.
public struct OutcomeFailure: Sendable, Equatable {
    public let code: String
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}
