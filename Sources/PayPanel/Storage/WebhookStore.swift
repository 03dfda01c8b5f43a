import Foundation

/// Where events, webhook endpoints, deliveries and their attempts are kept (migration 0006).
/// Adopters hold the SQL (`SQLiteWebhookStore`, and the PostgreSQL store's in `PayPanelPostgres`); the rules (what becomes an event, who gets
/// it, when to retry, how secrets are sealed) are `WebhookRelay`'s and `WebhookEndpoints`',
/// written once above every store. Every method is one transaction.
package protocol WebhookStore: FlushAwaitingStore {
    // MARK: Events

    /// Outbox messages (payments and checkouts) not yet published as events, oldest first.
    func unpublishedMessages(limit: Int) throws -> [UnpublishedMessage]
    /// In one transaction: inserts each event (one per message; a message already published is
    /// skipped), marks its message published, and creates a pending delivery, due at once, to
    /// every enabled endpoint whose event types match. Returns the events inserted.
    func publish(_ events: [NewEvent], at now: Date) throws -> [StoredEvent]
    /// The event `id`, or nil.
    func event(_ id: String) throws -> StoredEvent?
    /// A page of events, newest first (by publication order), optionally of one type: those
    /// after the cursor event (`.olderThan`), before it (`.newerThan`), or the newest.
    func events(type: String?, page: EventPage, limit: Int) throws -> [StoredEvent]
    /// The newest events (at most `limit`) whose object is one of `objectIDs`: an intent's and
    /// its refunds' events, for the console.
    func events(aboutObjects objectIDs: [String], limit: Int) throws -> [StoredEvent]

    // MARK: Endpoints

    func insertEndpoint(_ endpoint: WebhookEndpointRecord) throws
    /// The endpoint `id` (not deleted), or nil.
    func endpoint(_ id: String) throws -> WebhookEndpointRecord?
    /// Every endpoint not deleted, oldest first.
    func endpoints() throws -> [WebhookEndpointRecord]
    /// Writes the endpoint's status, reason and secrets; false when it is unknown or deleted.
    func updateEndpoint(_ endpoint: WebhookEndpointRecord) throws -> Bool
    /// Marks the endpoint deleted; its pending deliveries are never sent. False when unknown.
    func deleteEndpoint(_ id: String, at now: Date) throws -> Bool

    // MARK: Deliveries

    /// Pending deliveries due at `now` to enabled endpoints, earliest first, each pushed to
    /// `leaseUntil` in the same transaction so no other relay takes it meanwhile.
    func claimDueDeliveries(at now: Date, leaseUntil: Date, limit: Int) throws -> [ClaimedDelivery]
    /// Records an attempt and the delivery's new state in one transaction. With
    /// `disableEndpoint`, the endpoint is disabled too (a 410).
    func recordAttempt(_ attempt: WebhookAttemptRecord, delivery: DeliveryUpdate, disableEndpoint: String?) throws
    /// The deliveries of an event, by endpoint.
    func deliveries(ofEvent eventID: String) throws -> [WebhookDeliveryRecord]
    /// The attempts of a delivery, in order.
    func attempts(ofDelivery deliveryID: Int64) throws -> [WebhookAttemptRecord]
    /// Makes the event due again, now, for `endpointID` (created when there was no delivery),
    /// with a fresh schedule. False when the event or the endpoint is unknown.
    func replay(eventID: String, endpointID: String, at now: Date) throws -> Bool
}

/// Where a page of events starts.
package enum EventPage: Sendable, Equatable {
    case first
    /// Events older than the event with this id.
    case olderThan(String)
    /// Events newer than the event with this id (the page just before it, newest first).
    case newerThan(String)
}

/// An outbox message waiting to become an event.
package enum UnpublishedMessage: Sendable {
    case payment(OutboxMessage)
    case checkout(CheckoutMessage)
}

/// A checkout's change of status as the `checkout_outbox` trigger recorded it.
package struct CheckoutMessage: Sendable {
    package let id: Int64
    package let topic: String
    /// The checkout as it was then.
    package let checkout: Checkout

    package init(id: Int64, topic: String, checkout: Checkout) {
        self.id = id
        self.topic = topic
        self.checkout = checkout
    }
}

/// An event to publish.
package struct NewEvent: Sendable, Equatable {
    package enum Source: String, Sendable {
        case outbox
        case checkoutOutbox = "checkout_outbox"
    }

    package let id: String
    package let type: String
    package let objectID: String
    package let createdAt: Date
    package let source: Source
    package let sourceID: Int64
    /// The event's JSON, exactly as delivered.
    package let body: String

    package init(id: String, type: String, objectID: String, createdAt: Date, source: Source, sourceID: Int64, body: String) {
        self.id = id
        self.type = type
        self.objectID = objectID
        self.createdAt = createdAt
        self.source = source
        self.sourceID = sourceID
        self.body = body
    }
}

/// A published event.
package struct StoredEvent: Sendable, Equatable {
    package let id: String
    package let type: String
    package let objectID: String
    package let createdAt: Date
    /// The event's JSON, exactly as delivered.
    package let body: String

    package init(id: String, type: String, objectID: String, createdAt: Date, body: String) {
        self.id = id
        self.type = type
        self.objectID = objectID
        self.createdAt = createdAt
        self.body = body
    }
}

/// An endpoint row: its secrets sealed (`WebhookSecretBox`), never in clear.
package struct WebhookEndpointRecord: Sendable, Equatable {
    package enum Status: String, Sendable {
        case enabled
        case disabled
    }

    package let id: String
    package let url: String
    /// Event types, or `["*"]` for all.
    package let eventTypes: [String]
    package var status: Status
    package var disabledReason: String?
    package var sealedSecret: [UInt8]
    package var secretVersion: Int64
    /// The previous secret during a rotation, and until when it still signs.
    package var previousSealedSecret: [UInt8]?
    package var previousSecretVersion: Int64?
    package var previousExpiresAt: Date?
    package let createdAt: Date

    package init(
        id: String, url: String, eventTypes: [String], status: Status, disabledReason: String?, sealedSecret: [UInt8],
        secretVersion: Int64, previousSealedSecret: [UInt8]?, previousSecretVersion: Int64?, previousExpiresAt: Date?, createdAt: Date
    ) {
        self.id = id
        self.url = url
        self.eventTypes = eventTypes
        self.status = status
        self.disabledReason = disabledReason
        self.sealedSecret = sealedSecret
        self.secretVersion = secretVersion
        self.previousSealedSecret = previousSealedSecret
        self.previousSecretVersion = previousSecretVersion
        self.previousExpiresAt = previousExpiresAt
        self.createdAt = createdAt
    }

    /// True when this endpoint wants events of `type`.
    package func wants(_ type: String) -> Bool {
        eventTypes.contains("*") || eventTypes.contains(type)
    }
}

/// A delivery the relay took, with what it needs to send it.
package struct ClaimedDelivery: Sendable {
    package let deliveryID: Int64
    /// Attempts made before this one.
    package let attemptsMade: Int
    package let event: StoredEvent
    package let endpoint: WebhookEndpointRecord

    package init(deliveryID: Int64, attemptsMade: Int, event: StoredEvent, endpoint: WebhookEndpointRecord) {
        self.deliveryID = deliveryID
        self.attemptsMade = attemptsMade
        self.event = event
        self.endpoint = endpoint
    }
}

/// One event to one endpoint.
package struct WebhookDeliveryRecord: Sendable, Equatable {
    package enum Status: String, Sendable {
        case pending
        case delivered
        case failed
    }

    package let id: Int64
    package let eventID: String
    package let endpointID: String
    package let status: Status
    package let attempts: Int
    package let nextAttemptAt: Date?
    package let lastResponseCode: Int?
    package let lastError: String?

    package init(
        id: Int64, eventID: String, endpointID: String, status: Status, attempts: Int, nextAttemptAt: Date?, lastResponseCode: Int?,
        lastError: String?
    ) {
        self.id = id
        self.eventID = eventID
        self.endpointID = endpointID
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastResponseCode = lastResponseCode
        self.lastError = lastError
    }
}

/// What one attempt did.
package struct WebhookAttemptRecord: Sendable, Equatable {
    package enum Outcome: String, Sendable {
        /// 2xx.
        case delivered
        /// It failed and will be tried again.
        case retry
        /// It failed and was the last try.
        case failed
        /// 410 Gone: the endpoint was disabled.
        case disabled
    }

    package let deliveryID: Int64
    /// 1 for the first attempt.
    package let attempt: Int
    package let startedAt: Date
    package let durationMilliseconds: Int64
    package let responseCode: Int?
    package let outcome: Outcome
    /// Why it failed, without the secret or the body (`timeout`, `connection refused`, …).
    package let error: String?

    package init(
        deliveryID: Int64, attempt: Int, startedAt: Date, durationMilliseconds: Int64, responseCode: Int?, outcome: Outcome, error: String?
    ) {
        self.deliveryID = deliveryID
        self.attempt = attempt
        self.startedAt = startedAt
        self.durationMilliseconds = durationMilliseconds
        self.responseCode = responseCode
        self.outcome = outcome
        self.error = error
    }
}

/// The new state of a delivery after an attempt.
package struct DeliveryUpdate: Sendable, Equatable {
    package let deliveryID: Int64
    package let status: WebhookDeliveryRecord.Status
    package let attempts: Int
    /// When pending: the next attempt.
    package let nextAttemptAt: Date?
    package let responseCode: Int?
    package let error: String?
    package let at: Date

    package init(
        deliveryID: Int64, status: WebhookDeliveryRecord.Status, attempts: Int, nextAttemptAt: Date?, responseCode: Int?, error: String?, at: Date
    ) {
        self.deliveryID = deliveryID
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.responseCode = responseCode
        self.error = error
        self.at = at
    }
}

/// A webhook store or endpoint operation that failed, saying what to do.
package struct WebhookStoreError: PayPanelError, Equatable {
    package let code: String
    package let message: String
    /// The endpoint's field an `invalid_…` error is about (`url`, `events`), for an API's `param`.
    package let field: String?

    package init(_ message: String, code: String = "webhook_error", field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }
}
