import Foundation

// Reading intents for people: one intent with its history, and lists that stream.
extension PaymentLedger {
    /// The intent with its attempts, refunds and event history (`payments show`); nil when unknown.
    public func details(_ intentID: String) throws -> PaymentDetails? {
        try store.read { transaction in
            guard let machine = try loadMachine(intentID, in: transaction) else { return nil }
            let events = try transaction.events(ofIntent: intentID)
            return PaymentDetails(intent: machine.intent, attempts: machine.attempts, refunds: machine.refunds, events: events)
        }
    }

    /// Calls `body` with each intent, newest first, optionally only those in `status`, at most
    /// `limit`. Rows are read one at a time from one snapshot: memory does not grow with the
    /// number of intents.
    public func forEachIntent(status: PaymentStatus?, limit: Int?, _ body: (PaymentIntent) throws -> Void) throws {
        try store.read { try $0.forEachIntent(status: status, limit: limit, body) }
    }
}

/// An intent and everything that happened to it.
public struct PaymentDetails: Sendable {
    public let intent: PaymentIntent
    public let attempts: [Attempt]
    public let refunds: [Refund]
    /// The history, by version.
    public let events: [PaymentEventRecord]
}

extension PaymentDetails: JSONRepresentable {
    /// The intent's JSON with `attempts`, `refunds` and `events` added.
    public var json: JSONValue {
        guard case .object(var object) = intent.json else { return intent.json }
        object["attempts"] = .array(attempts.map(\.json))
        object["refunds"] = .array(refunds.map(\.json))
        object["events"] = .array(events.map(\.json))
        return .object(object)
    }
}

/// One row of an intent's history.
public struct PaymentEventRecord: Sendable, Equatable {
    public let version: Int64
    /// `intent_created`, `attempt_opened`, `authorize_approved`, …
    public let type: String
    public let fromStatus: PaymentStatus?
    public let toStatus: PaymentStatus?
    /// The event's details as stored (JSON text).
    public let data: String
    public let occurredAt: Date

    public init(version: Int64, type: String, fromStatus: PaymentStatus?, toStatus: PaymentStatus?, data: String, occurredAt: Date) {
        self.version = version
        self.type = type
        self.fromStatus = fromStatus
        self.toStatus = toStatus
        self.data = data
        self.occurredAt = occurredAt
    }
}

extension PaymentEventRecord: JSONRepresentable {
    public var json: JSONValue {
        let details = (try? JSONParser().parse(data)) ?? .string(data)
        return jsonObject([
            ("version", .number(version)),
            ("type", .string(type)),
            ("fromStatus", .optional(fromStatus?.rawValue)),
            ("toStatus", .optional(toStatus?.rawValue)),
            ("occurredAt", .string(Timestamp.format(occurredAt))),
            ("data", details),
        ])
    }
}
