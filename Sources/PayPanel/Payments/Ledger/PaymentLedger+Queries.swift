import Foundation

// Reading intents for people: one intent with its history, and lists that stream.
extension PaymentLedger {
    /// The intent with its attempts, refunds and event history (`payments show`); nil when unknown.
    package func details(_ intentID: String) throws -> PaymentDetails? {
        try store.read { transaction in
            guard let machine = try loadMachine(intentID, in: transaction) else { return nil }
            let events = try transaction.events(ofIntent: intentID)
            return PaymentDetails(intent: machine.intent, attempts: machine.attempts, refunds: machine.refunds, events: events)
        }
    }

    /// Calls `body` with each intent, newest first, optionally only those in `status`, at most
    /// `limit`. Rows are read one at a time from one snapshot: memory does not grow with the
    /// number of intents.
    package func forEachIntent(status: PaymentStatus?, limit: Int?, _ body: (PaymentIntent) throws -> Void) throws {
        try store.read { try $0.forEachIntent(status: status, limit: limit, body) }
    }

    /// One page of intents, newest first. A cursor is an intent id: the page starts strictly
    /// after it (`startingAfter`) or ends strictly before it (`endingBefore`), by
    /// `(createdAt, id)`. `hasMore` says whether there are more in the direction of travel.
    /// With `metadata`, only intents whose metadata holds each of its pairs are listed. An
    /// unknown cursor id is `intentNotFound`.
    package func intentPage(
        status: PaymentStatus?, metadata: [String: String] = [:], startingAfter: String?, endingBefore: String?, limit: Int
    ) throws -> IntentPageResult {
        try store.read { transaction in
            var page = IntentPage.first
            if let cursorID = startingAfter ?? endingBefore {
                guard let cursor = try transaction.intent(cursorID) else {
                    throw PaymentStoreError(reason: .intentNotFound(cursorID))
                }
                page = startingAfter != nil
                    ? .olderThan(createdAt: cursor.createdAt, id: cursor.id) : .newerThan(createdAt: cursor.createdAt, id: cursor.id)
            }
            var intents = try transaction.intents(status: status, metadata: metadata, page: page, limit: limit + 1)
            let hasMore = intents.count > limit
            if hasMore {
                // One more than asked was read to learn whether there are more: drop the one
                // farthest from the cursor (the oldest going forward, the newest going back).
                if case .newerThan = page { intents.removeFirst() } else { intents.removeLast() }
            }
            return IntentPageResult(intents: intents, hasMore: hasMore)
        }
    }

    /// The refund `id`, or nil.
    package func refund(id: String) throws -> Refund? {
        try store.read { try $0.refund(id) }
    }
}

/// A page of intents, newest first, and whether more lie beyond it.
public struct IntentPageResult: Sendable {
    public let intents: [PaymentIntent]
    public let hasMore: Bool
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
