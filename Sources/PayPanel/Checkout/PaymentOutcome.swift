import Foundation

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
