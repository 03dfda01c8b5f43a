/// One SQL statement that SQLite and PostgreSQL run word for word, except for how parameters are
/// written: `?` in SQLite's text, `$1`, `$2`, … in PostgreSQL's. Written once, with `?`; the
/// PostgreSQL text is derived from it once, when the statement is first used.
package struct SharedStatement: Sendable {
    /// With `?` for each parameter (SQLite).
    package let sqlite: String
    /// With `$1`, `$2`, … in the order the `?` stood (PostgreSQL).
    package let postgreSQL: String

    init(_ sqlite: String) {
        self.sqlite = sqlite
        self.postgreSQL = Self.numbered(sqlite)
    }

    /// `sql` with its `?` numbered `$1`, `$2`, …; a `?` inside a quoted literal stays as it is.
    /// SQLite's numbered parameters (`?1`, `?2`, one value used twice) become `$1`, `$2`.
    static func numbered(_ sql: String) -> String {
        var output = ""
        var count = 0
        var inLiteral = false
        var characters = sql.makeIterator()
        var pending = characters.next()
        while let character = pending {
            pending = characters.next()
            if character == "'" { inLiteral.toggle() }
            guard character == "?" && !inLiteral else {
                output.append(character)
                continue
            }
            if let digit = pending, digit.isASCII, digit.isNumber {
                output.append("$")
                while let next = pending, next.isASCII, next.isNumber {
                    output.append(next)
                    pending = characters.next()
                }
            } else {
                count += 1
                output += "$\(count)"
            }
        }
        return output
    }
}

/// The statements both stores run (SQLite's in `Storage/SQLite/`, PostgreSQL's in target
/// `PayPanelPostgres`), so a change to one is a change to both. What differs between the two
/// databases (upserts that return rows, `FOR UPDATE`, `INSERT OR IGNORE` against `ON CONFLICT`,
/// types and casts) stays in each store.
package enum SharedSQL {
    // MARK: Column lists both stores read in the same order (their row mappers are shared too)

    package static let outboxColumns = "id, intent_id, intent_version, topic, refund_id, payload, created_at"
    package static let pushDeliveryColumns =
        "id, apns_id, device_id, checkout_id, collapse_id, payload, expires_at, status, reason, attempts, next_attempt_at"
    package static let scheduledNotificationColumns = """
        id, deliver_at, category, title, subtitle, body, body_hidden, thread_id, order_reference, user_info, payload, \
        reveals_id, created_at, delivered_at, delivery_sequence, responded_at, response_action
        """
    package static let webhookEndpointColumns = """
        id, url, events, status, disabled_reason, secret_sealed, secret_version, previous_secret_sealed, \
        previous_secret_version, previous_expires_at, created_at
        """
    package static let webhookEventColumns = "id, type, object_id, created_at, body"

    // MARK: Statements

    package static let allDevices = SharedStatement("SELECT \(DeviceRows.deviceColumns) FROM devices ORDER BY created_at, id")
    package static let attemptsOfIntent = SharedStatement("SELECT \(PaymentRows.attemptColumns) FROM attempts WHERE intent_id = ? ORDER BY sequence")
    package static let appliedMigrations = SharedStatement("SELECT identifier, checksum, applied_at FROM schema_migrations ORDER BY identifier")
    package static let completeIdempotencyKey = SharedStatement(
        """
        UPDATE idempotency_keys SET status = 'completed', outcome = ?, response = ?, error_code = ?, error_message = ?,
        locked_at = NULL, completed_at = ?
        WHERE key = ? AND scope = ? AND request_hash = ?
        """)
    package static let deleteIntentTimer = SharedStatement("DELETE FROM timers WHERE intent_id = ? AND kind = ? AND reference = ?")
    package static let deleteTimer = SharedStatement("DELETE FROM timers WHERE id = ?")
    package static let deleteWebhookEndpoint = SharedStatement("UPDATE webhook_endpoints SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL")
    package static let deviceByID = SharedStatement("SELECT \(DeviceRows.deviceColumns) FROM devices WHERE id = ?")
    package static let deviceByToken = SharedStatement(
        "SELECT \(DeviceRows.deviceColumns) FROM devices WHERE token = ? AND topic = ? AND environment = ?")
    package static let disableWebhookEndpoint = SharedStatement("UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ? WHERE id = ?")
    package static let dueScheduledNotifications = SharedStatement(
        """
        SELECT id FROM scheduled_notifications WHERE delivered_at IS NULL AND deliver_at <= ? ORDER BY deliver_at, id LIMIT ?
        """)
    /// `?1`: the time, used twice.
    package static let duePushDeliveryIDs = SharedStatement(
        """
        SELECT id FROM push_deliveries WHERE status = 'pending' AND next_attempt_at <= ?1
        AND (claimed_until IS NULL OR claimed_until <= ?1) ORDER BY next_attempt_at, id LIMIT ?2
        """)
    package static let enabledWebhookEndpoints = SharedStatement(
        """
        SELECT \(webhookEndpointColumns) FROM webhook_endpoints WHERE deleted_at IS NULL AND status = 'enabled' ORDER BY created_at, id
        """)
    package static let eventCount = SharedStatement("SELECT count(*) FROM events")
    package static let eventsOfIntent = SharedStatement(
        """
        SELECT version, type, from_status, to_status, data, occurred_at FROM events WHERE intent_id = ? ORDER BY version
        """)
    package static let finishPushAttempt = SharedStatement(
        """
        UPDATE push_attempts SET finished_at = ?, outcome = ?, http_status = ?, reason = ? WHERE delivery_id = ? AND attempt = ?
        """)
    package static let idempotencyRecordByKey = SharedStatement(
        "SELECT \(IdempotencyRows.columns) FROM idempotency_keys WHERE key = ? AND scope = ?")
    package static let insertAPIKey = SharedStatement("INSERT INTO api_keys (id, name, key_hash, created_at, revoked_at) VALUES (?, ?, ?, ?, ?)")
    package static let insertAppliedMigration = SharedStatement("INSERT INTO schema_migrations (identifier, checksum, applied_at) VALUES (?, ?, ?)")
    package static let insertDevice = SharedStatement(
        """
        INSERT INTO devices (id, token, topic, environment, status, dead_reason, dead_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """)
    package static let insertEvent = SharedStatement(
        """
        INSERT INTO events (intent_id, version, type, from_status, to_status, data, occurred_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        """)
    package static let insertIdempotencyKey = SharedStatement(
        "INSERT INTO idempotency_keys (\(IdempotencyRows.insertColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    package static let insertInboxMessage = SharedStatement(
        """
        INSERT INTO inbox (source, event_id, intent_id, received_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING
        """)
    package static let insertOutboxMessage = SharedStatement(
        """
        INSERT INTO outbox (intent_id, intent_version, topic, refund_id, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)
        """)
    package static let insertPushAttemptInFlight = SharedStatement(
        """
        INSERT INTO push_attempts (delivery_id, attempt, started_at, outcome) VALUES (?, ?, ?, 'in_flight')
        """)
    package static let insertSeenTokenTransaction = SharedStatement(
        """
        INSERT INTO seen_token_transactions (transaction_id, intent_id, attempt_id, seen_at) VALUES (?, ?, ?, ?)
        """)
    package static let insertWebhookEndpoint = SharedStatement(
        "INSERT INTO webhook_endpoints (\(webhookEndpointColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    package static let insertWebhookAttempt = SharedStatement(
        """
        INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, response_code, outcome, error)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """)
    package static let insertWebhookDelivery = SharedStatement(
        """
        INSERT INTO webhook_deliveries (event_id, endpoint_id, status, next_attempt_at, updated_at) VALUES (?, ?, 'pending', ?, ?)
        """)
    package static let insertWebhookEventOnce = SharedStatement(
        """
        INSERT INTO webhook_events (id, type, object_id, created_at, source, source_id, body) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (source, source_id) DO NOTHING
        """)
    package static let intentByID = SharedStatement("SELECT \(PaymentRows.intentColumns) FROM intents WHERE id = ?")
    package static let intentIDsInCreationOrder = SharedStatement("SELECT id FROM intents ORDER BY created_at, id")
    package static let intentOfSeenTokenTransaction = SharedStatement("SELECT intent_id FROM seen_token_transactions WHERE transaction_id = ?")
    package static let intentsWithUnknownOutcome = SharedStatement(
        """
        SELECT id, in_flight_operation, in_flight_attempt_id, coalesce(outcome_unknown_since, in_flight_started_at),
        reconciliation_lookups
        FROM intents WHERE in_flight_operation IS NOT NULL ORDER BY in_flight_started_at, id LIMIT ?
        """)
    package static let latestPushDeliveryOfCheckout = SharedStatement(
        "SELECT \(pushDeliveryColumns) FROM push_deliveries WHERE checkout_id = ? ORDER BY id DESC LIMIT 1")
    package static let lastNotificationDeliverySequence = SharedStatement("SELECT coalesce(max(delivery_sequence), 0) FROM scheduled_notifications")
    package static let liveWebhookEndpoint = SharedStatement(
        "SELECT \(webhookEndpointColumns) FROM webhook_endpoints WHERE id = ? AND deleted_at IS NULL")
    package static let liveWebhookEndpoints = SharedStatement(
        "SELECT \(webhookEndpointColumns) FROM webhook_endpoints WHERE deleted_at IS NULL ORDER BY created_at, id")
    package static let liveWebhookEndpointExists = SharedStatement("SELECT 1 FROM webhook_endpoints WHERE id = ? AND deleted_at IS NULL")
    package static let markCheckoutMessagePublished = SharedStatement("UPDATE checkout_outbox SET published_at = ? WHERE id = ? AND published_at IS NULL")
    package static let markDeviceDead = SharedStatement(
        """
        UPDATE devices SET status = 'dead', dead_reason = ?, dead_at = ? WHERE id = ? AND status = 'active'
        """)
    package static let markNotificationDelivered = SharedStatement(
        """
        UPDATE scheduled_notifications SET delivered_at = ?, delivery_sequence = ? WHERE id = ? AND delivered_at IS NULL
        """)
    package static let markOutboxMessageDelivered = SharedStatement("UPDATE outbox SET delivered_at = ?, delivery_attempts = delivery_attempts + 1 WHERE id = ?")
    package static let markOutboxMessageDeliveredOnce = SharedStatement(
        """
        UPDATE outbox SET delivered_at = ?, delivery_attempts = delivery_attempts + 1 WHERE id = ? AND delivered_at IS NULL
        """)
    package static let nextPendingNotification = SharedStatement(
        "SELECT \(scheduledNotificationColumns) FROM scheduled_notifications WHERE delivered_at IS NULL ORDER BY deliver_at, id LIMIT 1")
    package static let notificationByID = SharedStatement("SELECT \(scheduledNotificationColumns) FROM scheduled_notifications WHERE id = ?")
    package static let outboxOfIntent = SharedStatement("SELECT \(outboxColumns) FROM outbox WHERE intent_id = ? ORDER BY id")
    package static let pendingRefunds = SharedStatement(
        """
        SELECT intent_id, id, coalesce(outcome_unknown_since, created_at), reconciliation_lookups FROM refunds
        WHERE status = 'pending' ORDER BY created_at, id LIMIT ?
        """)
    package static let pushDeliveryByID = SharedStatement("SELECT \(pushDeliveryColumns) FROM push_deliveries WHERE id = ?")
    package static let purgeIdempotencyKeys = SharedStatement("DELETE FROM idempotency_keys WHERE created_at <= ?")
    package static let pushAttemptsOfDelivery = SharedStatement(
        """
        SELECT attempt, started_at, finished_at, outcome, http_status, reason FROM push_attempts WHERE delivery_id = ? ORDER BY attempt
        """)
    package static let recordNotificationResponse = SharedStatement(
        """
        UPDATE scheduled_notifications SET responded_at = ?, response_action = ? WHERE id = ? AND responded_at IS NULL
        """)
    package static let recordWebhookDeliveryResult = SharedStatement(
        """
        UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, last_response_code = ?, last_error = ?, updated_at = ?
        WHERE id = ?
        """)
    package static let refundByID = SharedStatement("SELECT \(PaymentRows.refundColumns) FROM refunds WHERE id = ?")
    package static let relockIdempotencyKey = SharedStatement("UPDATE idempotency_keys SET locked_at = ? WHERE key = ? AND scope = ?")
    package static let requeueWebhookDelivery = SharedStatement(
        """
        INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts, next_attempt_at, updated_at)
        VALUES (?, ?, 'pending', 0, ?, ?)
        ON CONFLICT (event_id, endpoint_id) DO UPDATE SET status = 'pending', attempts = 0, next_attempt_at = excluded.next_attempt_at,
        updated_at = excluded.updated_at
        """)
    package static let rescheduleWebhookDelivery = SharedStatement("UPDATE webhook_deliveries SET next_attempt_at = ?, updated_at = ? WHERE id = ?")
    package static let revokeAPIKey = SharedStatement("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")
    package static let setIdempotencyKeyResource = SharedStatement(
        """
        UPDATE idempotency_keys SET resource_id = ? WHERE key = ? AND scope = ? AND status = 'in_progress'
        """)
    package static let timerStillDue = SharedStatement("SELECT 1 FROM timers WHERE id = ? AND due_at = ? AND due_at <= ?")
    package static let timersOfIntent = SharedStatement(
        """
        SELECT id, intent_id, kind, reference, due_at FROM timers WHERE intent_id = ? ORDER BY due_at, id
        """)
    package static let undeliveredOutboxMessages = SharedStatement(
        "SELECT \(outboxColumns) FROM outbox WHERE delivered_at IS NULL ORDER BY id LIMIT ?")
    package static let unpublishedCheckoutMessages = SharedStatement(
        """
        SELECT checkout_id, status, panel, capture_method, expires_at, client_secret_hash, payment_intent_id,
        created_at, updated_at, version, metadata, id, topic
        FROM checkout_outbox WHERE published_at IS NULL ORDER BY id LIMIT ?
        """)
    /// The stored hash of a checkout's client secret, by id (the device's token is checked
    /// against it alone).
    package static let checkoutSecretHash = SharedStatement("SELECT client_secret_hash FROM checkouts WHERE id = ?")
    /// Only at the version the caller read (`previousVersion`, the last value).
    package static let updateCheckout = SharedStatement(
        """
        UPDATE checkouts SET status = ?, panel = ?, capture_method = ?, expires_at = ?, payment_intent_id = ?,
            updated_at = ?, version = ?, metadata = ?
        WHERE id = ? AND version = ?
        """)
    package static let updateWebhookEndpoint = SharedStatement(
        """
        UPDATE webhook_endpoints SET status = ?, disabled_reason = ?, secret_sealed = ?, secret_version = ?,
        previous_secret_sealed = ?, previous_secret_version = ?, previous_expires_at = ?
        WHERE id = ? AND deleted_at IS NULL
        """)
    package static let upsertTimer = SharedStatement(
        """
        INSERT INTO timers (intent_id, kind, reference, due_at, created_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (intent_id, kind, reference) DO UPDATE SET due_at = excluded.due_at
        """)
    package static let webhookAttemptsOfDelivery = SharedStatement(
        """
        SELECT delivery_id, attempt, started_at, duration_ms, response_code, outcome, error FROM webhook_attempts WHERE delivery_id = ? ORDER BY id
        """)
    package static let webhookDeliveriesOfEvent = SharedStatement(
        """
        SELECT id, event_id, endpoint_id, status, attempts, next_attempt_at, last_response_code, last_error
        FROM webhook_deliveries WHERE event_id = ? ORDER BY endpoint_id
        """)
    package static let webhookEventByID = SharedStatement("SELECT \(webhookEventColumns) FROM webhook_events WHERE id = ?")
    package static let webhookEventExists = SharedStatement("SELECT 1 FROM webhook_events WHERE id = ?")
}
