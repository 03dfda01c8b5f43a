import Foundation

// Reading intents for people: one intent with its history, and lists that stream.
extension PaymentRepository {
    /// The intent with its attempts, refunds and event history (`payments show`); nil when unknown.
    public func details(_ intentID: String) throws -> PaymentDetails? {
        try database.read {
            guard let machine = try loadMachine(intentID) else { return nil }
            let events = try database.queryAll(
                "SELECT version, type, from_status, to_status, data, occurred_at FROM events WHERE intent_id = ? ORDER BY version",
                [intentID]
            ) { row in
                PaymentEventRecord(
                    version: row.int64(0), type: row.string(1), fromStatus: row.optionalString(2).flatMap(PaymentStatus.init(rawValue:)),
                    toStatus: PaymentStatus(rawValue: row.string(3)), data: row.string(4), occurredAt: PaymentRows.date(row.int64(5)))
            }
            return PaymentDetails(intent: machine.intent, attempts: machine.attempts, refunds: machine.refunds, events: events)
        }
    }

    /// Calls `body` with each intent, newest first, optionally only those in `status`, at most
    /// `limit`. Rows are read one at a time from one snapshot: memory does not grow with the
    /// number of intents.
    public func forEachIntent(status: PaymentStatus?, limit: Int?, _ body: (PaymentIntent) throws -> Void) throws {
        let path = database.path
        let limitValue = Int64(limit ?? -1)  // SQLite: a negative LIMIT means none
        try database.read {
            if let status {
                try database.query(
                    "SELECT \(PaymentRows.intentColumns) FROM intents WHERE status = ? ORDER BY created_at DESC, id DESC LIMIT ?",
                    [status.rawValue, limitValue]
                ) { row in try body(try PaymentRows.intent(row, path: path)) }
            } else {
                try database.query(
                    "SELECT \(PaymentRows.intentColumns) FROM intents ORDER BY created_at DESC, id DESC LIMIT ?", [limitValue]
                ) { row in try body(try PaymentRows.intent(row, path: path)) }
            }
        }
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
