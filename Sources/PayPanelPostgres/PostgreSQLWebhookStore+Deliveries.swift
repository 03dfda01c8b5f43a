#if PostgreSQL
import Foundation
import PayPanel

// Deliveries and their attempts: the relays' claims (SKIP LOCKED, then a lease), what each
// attempt did, and replays.
extension PostgreSQLWebhookStore {
    static let endpointColumnsOfW = endpointColumns.split(separator: ",")
        .map { "w." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")

    // `FOR UPDATE OF d SKIP LOCKED`: only the delivery rows are locked (endpoints and events
    // stay free for the routes), and a row another relay is claiming right now is passed over.
    // Under READ COMMITTED a row whose claim committed meanwhile is re-checked against the
    // WHERE clause before it is locked, so its lease (a later next_attempt_at) excludes it.
    static let dueDeliveries = S("webhooks.claim_due", """
        SELECT d.id, d.attempts, e.id, e.type, e.object_id, e.created_at, e.body, \(endpointColumnsOfW)
        FROM webhook_deliveries d
        JOIN webhook_events e ON e.id = d.event_id
        JOIN webhook_endpoints w ON w.id = d.endpoint_id
        WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND w.status = 'enabled' AND w.deleted_at IS NULL
        ORDER BY d.next_attempt_at, d.id LIMIT $2
        FOR UPDATE OF d SKIP LOCKED
        """)
    static let lease = S("webhooks.lease", SharedSQL.rescheduleWebhookDelivery.postgreSQL)

    package func claimDueDeliveries(at now: Date, leaseUntil: Date, limit: Int) throws -> [ClaimedDelivery] {
        try write { connection in
            let claimed = try connection.execute(Self.dueDeliveries, [now, Int64(limit)]).rows.map { row in
                ClaimedDelivery(
                    deliveryID: row.int64(0), attemptsMade: row.int(1), event: Self.event(row, offset: 2),
                    endpoint: try WebhookRows.endpoint(row, offset: 7))
            }
            for delivery in claimed { try connection.execute(Self.lease, [leaseUntil, now, delivery.deliveryID]) }
            return claimed
        }
    }

    static let insertAttempt = S("webhooks.insert_attempt", SharedSQL.insertWebhookAttempt.postgreSQL)
    static let updateDelivery = S("webhooks.update_delivery", SharedSQL.recordWebhookDeliveryResult.postgreSQL)
    static let disableEndpoint = S(
        "webhooks.disable_endpoint", SharedSQL.disableWebhookEndpoint.postgreSQL)

    package func recordAttempt(_ attempt: WebhookAttemptRecord, delivery: DeliveryUpdate, disableEndpoint: String?) throws {
        try write { connection in
            try connection.execute(Self.insertAttempt, [
                attempt.deliveryID, attempt.attempt, attempt.startedAt, attempt.durationMilliseconds, attempt.responseCode,
                attempt.outcome.rawValue, attempt.error.map { String($0.prefix(300)) },
            ])
            try connection.execute(Self.updateDelivery, [
                delivery.status.rawValue, delivery.attempts, delivery.nextAttemptAt, delivery.responseCode, delivery.error, delivery.at,
                delivery.deliveryID,
            ])
            if let disableEndpoint {
                try connection.execute(Self.disableEndpoint, ["the endpoint answered 410 Gone", disableEndpoint])
            }
        }
    }

    static let deliveriesOfEvent = S("webhooks.deliveries_of_event", SharedSQL.webhookDeliveriesOfEvent.postgreSQL)

    package func deliveries(ofEvent eventID: String) throws -> [WebhookDeliveryRecord] {
        try single(Self.deliveriesOfEvent, [eventID]).rows.map { row in
            WebhookDeliveryRecord(
                id: row.int64(0), eventID: row.string(1), endpointID: row.string(2),
                status: WebhookDeliveryRecord.Status(rawValue: row.string(3)) ?? .failed, attempts: row.int(4),
                nextAttemptAt: row.optionalInt64(5).map(PaymentRows.date), lastResponseCode: row.optionalInt64(6).map(Int.init),
                lastError: row.optionalString(7))
        }
    }

    static let attemptsOfDelivery = S("webhooks.attempts_of_delivery", SharedSQL.webhookAttemptsOfDelivery.postgreSQL)

    package func attempts(ofDelivery deliveryID: Int64) throws -> [WebhookAttemptRecord] {
        try single(Self.attemptsOfDelivery, [deliveryID]).rows.map { row in
            WebhookAttemptRecord(
                deliveryID: row.int64(0), attempt: row.int(1), startedAt: PaymentRows.date(row.int64(2)), durationMilliseconds: row.int64(3),
                responseCode: row.optionalInt64(4).map(Int.init), outcome: WebhookAttemptRecord.Outcome(rawValue: row.string(5)) ?? .failed,
                error: row.optionalString(6))
        }
    }

    static let eventsAboutObject = S("webhooks.events_about_object", """
        SELECT seq, \(eventColumns) FROM webhook_events WHERE object_id = $1 ORDER BY seq DESC LIMIT $2
        """)

    /// The events about `objectIDs` (an intent and its refunds), newest first, at most `limit`:
    /// what main's console route asks `WebhookStore` for (`SQLiteWebhookStore` has the same
    /// method). One prepared statement per object on the `(object_id, seq)` index, merged by
    /// `seq`, so no SQL is built from the number of ids.
    package func events(aboutObjects objectIDs: [String], limit: Int) throws -> [StoredEvent] {
        guard !objectIDs.isEmpty, limit > 0 else { return [] }
        let rows = try read { connection in
            try Set(objectIDs).flatMap { id in try connection.execute(Self.eventsAboutObject, [id, Int64(limit)]).rows }
        }
        return rows.sorted { $0.int64(0) > $1.int64(0) }.prefix(limit).map { Self.event($0, offset: 1) }
    }

    static let eventExists = S("webhooks.event_exists", SharedSQL.webhookEventExists.postgreSQL)
    static let endpointExists = S("webhooks.endpoint_exists", SharedSQL.liveWebhookEndpointExists.postgreSQL)
    static let replayDelivery = S("webhooks.replay", SharedSQL.requeueWebhookDelivery.postgreSQL)

    public func replay(eventID: String, endpointID: String, at now: Date) throws -> Bool {
        try write { connection in
            guard !(try connection.execute(Self.eventExists, [eventID]).rows.isEmpty),
                  !(try connection.execute(Self.endpointExists, [endpointID]).rows.isEmpty)
            else { return false }
            try connection.execute(Self.replayDelivery, [eventID, endpointID, now, now])
            return true
        }
    }
}
#endif
