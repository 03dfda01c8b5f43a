import Foundation

/// `WebhookStore` on the payments database (migration 0006), reading the payments outbox
/// (0002) and the checkout outbox its trigger fills. One owner, like its `Database`: the relay
/// and the routes each give it a connection of their own.
package final class SQLiteWebhookStore: WebhookStore {
    package let database: Database

    /// A store on an open, migrated payments database.
    package init(database: Database) {
        self.database = database
    }

    /// The commits and settled reads in `body` leave their flush to one wait at the end, which
    /// suspends the owner (`Database.awaitingFlush`).
    package nonisolated(nonsending) func awaitingFlush<T>(_ body: () throws -> T) async throws -> T {
        try await database.awaitingFlush(body)
    }

    // MARK: - Events

    package func unpublishedMessages(limit: Int) throws -> [UnpublishedMessage] {
        try database.read {
            let payments = try database.queryAll(
                SharedSQL.undeliveredOutboxMessages.sqlite,
                [limit]
            ) { row in
                UnpublishedMessage.payment(OutboxMessage(
                    id: row.int64(0), intentID: row.string(1), intentVersion: row.int64(2), topic: row.string(3),
                    refundID: row.optionalString(4), payload: row.string(5), createdAt: PaymentRows.date(row.int64(6))))
            }
            let checkouts = try database.queryAll(
                SharedSQL.unpublishedCheckoutMessages.sqlite, [limit]
            ) { row in
                UnpublishedMessage.checkout(CheckoutMessage(id: row.int64(11), topic: row.string(12), checkout: try SQLitePaymentStore.checkout(row)))
            }
            return UnpublishedMessage.mergedOldestFirst(payments: payments, checkouts: checkouts)
        }
    }

    package func publish(_ events: [NewEvent], at now: Date) throws -> [StoredEvent] {
        try database.write {
            let endpoints = try activeEndpoints()
            var inserted: [StoredEvent] = []
            for event in events {
                try database.execute(
                    SharedSQL.insertWebhookEventOnce.sqlite,
                    [event.id, event.type, event.objectID, event.createdAt, event.source.rawValue, event.sourceID, event.body])
                let isNew = database.changes == 1
                switch event.source {
                case .outbox:
                    try database.execute(
                        SharedSQL.markOutboxMessageDeliveredOnce.sqlite,
                        [now, event.sourceID])
                case .checkoutOutbox:
                    try database.execute(SharedSQL.markCheckoutMessagePublished.sqlite, [now, event.sourceID])
                }
                guard isNew else { continue }
                for endpoint in endpoints where endpoint.wants(event.type) {
                    try database.execute(
                        SharedSQL.insertWebhookDelivery.sqlite,
                        [event.id, endpoint.id, now, now])
                }
                inserted.append(StoredEvent(id: event.id, type: event.type, objectID: event.objectID, createdAt: event.createdAt, body: event.body))
            }
            return inserted
        }
    }

    private static let eventColumns = SharedSQL.webhookEventColumns

    private static func event(_ row: Row) -> StoredEvent {
        StoredEvent(id: row.string(0), type: row.string(1), objectID: row.string(2), createdAt: PaymentRows.date(row.int64(3)), body: row.string(4))
    }

    package func event(_ id: String) throws -> StoredEvent? {
        try database.read {
            try database.queryFirst(SharedSQL.webhookEventByID.sqlite, [id], Self.event)
        }
    }

    package func events(type: String?, page: EventPage, limit: Int) throws -> [StoredEvent] {
        try database.read {
            var conditions: [String] = []
            var values: [any DatabaseBindable] = []
            if let type {
                conditions.append("type = ?")
                values.append(type)
            }
            var order = "DESC"
            switch page {
            case .first: break
            case .olderThan(let id):
                conditions.append("seq < (SELECT seq FROM webhook_events WHERE id = ?)")
                values.append(id)
            case .newerThan(let id):
                conditions.append("seq > (SELECT seq FROM webhook_events WHERE id = ?)")
                values.append(id)
                order = "ASC"
            }
            let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            values.append(limit)
            let rows = try database.queryAll(
                "SELECT \(Self.eventColumns) FROM webhook_events\(filter) ORDER BY seq \(order) LIMIT ?", values, Self.event)
            return order == "ASC" ? rows.reversed() : rows
        }
    }

    // MARK: - Endpoints

    private func activeEndpoints() throws -> [WebhookEndpointRecord] {
        try database.queryAll(SharedSQL.enabledWebhookEndpoints.sqlite, []) { try WebhookRows.endpoint($0) }
    }

    package func insertEndpoint(_ endpoint: WebhookEndpointRecord) throws {
        try database.write {
            try database.execute(
                SharedSQL.insertWebhookEndpoint.sqlite,
                [endpoint.id, endpoint.url, Self.typesText(endpoint.eventTypes), endpoint.status.rawValue, endpoint.disabledReason,
                 endpoint.sealedSecret, endpoint.secretVersion, endpoint.previousSealedSecret, endpoint.previousSecretVersion,
                 endpoint.previousExpiresAt, endpoint.createdAt])
        }
    }

    private static func typesText(_ types: [String]) -> String {
        JSONWriter.string(.array(types.map(JSONValue.string)))
    }

    package func endpoint(_ id: String) throws -> WebhookEndpointRecord? {
        try database.read {
            try database.queryFirst(SharedSQL.liveWebhookEndpoint.sqlite, [id]) { try WebhookRows.endpoint($0) }
        }
    }

    package func endpoints() throws -> [WebhookEndpointRecord] {
        try database.read {
            try database.queryAll(SharedSQL.liveWebhookEndpoints.sqlite, []) { try WebhookRows.endpoint($0) }
        }
    }

    package func updateEndpoint(_ endpoint: WebhookEndpointRecord) throws -> Bool {
        try database.write {
            try database.execute(
                SharedSQL.updateWebhookEndpoint.sqlite,
                [endpoint.status.rawValue, endpoint.disabledReason, endpoint.sealedSecret, endpoint.secretVersion,
                 endpoint.previousSealedSecret, endpoint.previousSecretVersion, endpoint.previousExpiresAt, endpoint.id])
            return database.changes == 1
        }
    }

    package func deleteEndpoint(_ id: String, at now: Date) throws -> Bool {
        try database.write {
            try database.execute(SharedSQL.deleteWebhookEndpoint.sqlite, [now, id])
            return database.changes == 1
        }
    }

    // MARK: - Deliveries

    package func claimDueDeliveries(at now: Date, leaseUntil: Date, limit: Int) throws -> [ClaimedDelivery] {
        try database.write {
            let claimed = try database.queryAll(
                """
                SELECT d.id, d.attempts, e.id, e.type, e.object_id, e.created_at, e.body, \(SharedSQL.webhookEndpointColumns.split(separator: ",").map { "w." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
                FROM webhook_deliveries d
                JOIN webhook_events e ON e.id = d.event_id
                JOIN webhook_endpoints w ON w.id = d.endpoint_id
                WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND w.status = 'enabled' AND w.deleted_at IS NULL
                ORDER BY d.next_attempt_at, d.id LIMIT ?
                """, [now, limit]
            ) { row in
                ClaimedDelivery(
                    deliveryID: row.int64(0), attemptsMade: row.int(1),
                    event: StoredEvent(id: row.string(2), type: row.string(3), objectID: row.string(4), createdAt: PaymentRows.date(row.int64(5)), body: row.string(6)),
                    endpoint: try WebhookRows.endpoint(row, offset: 7))
            }
            for delivery in claimed {
                try database.execute(SharedSQL.rescheduleWebhookDelivery.sqlite, [leaseUntil, now, delivery.deliveryID])
            }
            return claimed
        }
    }

    package func recordAttempt(_ attempt: WebhookAttemptRecord, delivery: DeliveryUpdate, disableEndpoint: String?) throws {
        try database.write {
            try database.execute(
                SharedSQL.insertWebhookAttempt.sqlite,
                [attempt.deliveryID, attempt.attempt, attempt.startedAt, attempt.durationMilliseconds, attempt.responseCode,
                 attempt.outcome.rawValue, attempt.error.map { String($0.prefix(300)) }])
            try database.execute(
                SharedSQL.recordWebhookDeliveryResult.sqlite,
                [delivery.status.rawValue, delivery.attempts, delivery.nextAttemptAt, delivery.responseCode, delivery.error, delivery.at,
                 delivery.deliveryID])
            if let disableEndpoint {
                try database.execute(
                    SharedSQL.disableWebhookEndpoint.sqlite,
                    ["the endpoint answered 410 Gone", disableEndpoint])
            }
        }
    }

    package func deliveries(ofEvent eventID: String) throws -> [WebhookDeliveryRecord] {
        try database.read {
            try database.queryAll(
                SharedSQL.webhookDeliveriesOfEvent.sqlite, [eventID]
            ) { row in
                WebhookDeliveryRecord(
                    id: row.int64(0), eventID: row.string(1), endpointID: row.string(2),
                    status: WebhookDeliveryRecord.Status(rawValue: row.string(3)) ?? .failed, attempts: row.int(4),
                    nextAttemptAt: row.optionalInt64(5).map(PaymentRows.date), lastResponseCode: row.optionalInt64(6).map(Int.init),
                    lastError: row.optionalString(7))
            }
        }
    }

    package func attempts(ofDelivery deliveryID: Int64) throws -> [WebhookAttemptRecord] {
        try database.read {
            try database.queryAll(
                SharedSQL.webhookAttemptsOfDelivery.sqlite,
                [deliveryID]
            ) { row in
                WebhookAttemptRecord(
                    deliveryID: row.int64(0), attempt: row.int(1), startedAt: PaymentRows.date(row.int64(2)), durationMilliseconds: row.int64(3),
                    responseCode: row.optionalInt64(4).map(Int.init), outcome: WebhookAttemptRecord.Outcome(rawValue: row.string(5)) ?? .failed,
                    error: row.optionalString(6))
            }
        }
    }

    package func replay(eventID: String, endpointID: String, at now: Date) throws -> Bool {
        try database.write {
            guard try database.queryFirst(SharedSQL.webhookEventExists.sqlite, [eventID], { _ in true }) != nil,
                  try database.queryFirst(SharedSQL.liveWebhookEndpointExists.sqlite, [endpointID], { _ in true }) != nil
            else { return false }
            try database.execute(
                SharedSQL.requeueWebhookDelivery.sqlite, [eventID, endpointID, now, now])
            return true
        }
    }
}
