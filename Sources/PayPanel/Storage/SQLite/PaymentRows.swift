import Foundation

// Mapping between the payments tables and the value types. Rows written by this program
// always map back (the CHECK constraints see to that); a row that does not is reported as
// corrupt rather than trapping.
package enum PaymentRows {
    package static let intentColumns = """
        id, status, amount, currency, capture_method, order_reference, amount_authorized, amount_captured,
        amount_refunded, amount_refund_pending, capture_before, attempt_count, current_attempt_id,
        in_flight_operation, in_flight_attempt_id, in_flight_amount, in_flight_void_purpose, in_flight_started_at,
        outcome_unknown_since, reconciliation_lookups, processor_retries, last_error_code, last_error_decline_code,
        last_error_message, last_error_attempt_id, cancellation_reason, version, created_at, updated_at, metadata
        """
    /// What an update writes: the columns a transition can change. Not those `PaymentIntent`
    /// fixes at creation (id, amount, currency, capture method, order reference, metadata, created_at),
    /// because naming a column in the SET list, even set to itself, costs:
    /// - SQLite rewrites every index over it (`intents_by_created` on each of a payment's four
    ///   updates, one more page per commit, counted with `strace` over `bench lifecycle`);
    /// - naming the key makes SQLite check every table that references intents for rows
    ///   pointing at the old key — the outbox, inbox, timers, token and checkout tables have no
    ///   index on that column, so each transition scanned them whole and slowed down as they
    ///   grew (`bench serve`: 208 payments/s on a fresh file, 114 after 1,800 payments).
    package static let intentChangingColumns = """
        status, amount_authorized, amount_captured, amount_refunded, amount_refund_pending, capture_before,
        attempt_count, current_attempt_id, in_flight_operation, in_flight_attempt_id, in_flight_amount,
        in_flight_void_purpose, in_flight_started_at, outcome_unknown_since, reconciliation_lookups, processor_retries,
        last_error_code, last_error_decline_code, last_error_message, last_error_attempt_id, cancellation_reason,
        version, updated_at
        """

    package static let attemptColumns = """
        id, intent_id, sequence, status, source, network, card_last4, expiry_month, expiry_year, eci_present,
        amount, currency, approved_amount, approved_currency, processor_id, failure_code, decline_code,
        failure_message, sheet_status, sheet_deadline, created_at, updated_at
        """

    package static let refundColumns = """
        id, intent_id, attempt_id, amount, currency, status, reason, processor_accepted, processor_id, failure_code,
        outcome_unknown_since, reconciliation_lookups, processor_retries, created_at, updated_at
        """

    // The statements of every transition, built once: the connection's statement cache is
    // keyed by the SQL text, and interpolating 700 characters of column names into a new
    // string (then hashing it) on every call showed up in the lifecycle benchmark's profile.
    // (The intent's and its attempts' reads are `SharedSQL.intentByID` and `attemptsOfIntent`.)
    static let selectRefundsSQL = "SELECT \(refundColumns) FROM refunds WHERE intent_id = ? ORDER BY created_at, rowid"
    private static let insertIntentSQL = "INSERT INTO intents (\(intentColumns)) VALUES (\(placeholders(30)))"
    static let updateIntentSQL = """
        UPDATE intents SET (\(intentChangingColumns)) = (\(placeholders(23)))
        WHERE id = ? AND version = ?
        """
    private static let upsertAttemptSQL = "INSERT INTO attempts (\(attemptColumns)) VALUES (\(placeholders(22))) \(attemptConflictUpdate)"
    private static let upsertRefundSQL = "INSERT INTO refunds (\(refundColumns)) VALUES (\(placeholders(15))) \(refundConflictUpdate)"
    /// What saving an attempt that exists changes (both stores' upserts end with it).
    package static let attemptConflictUpdate = """
        ON CONFLICT (id) DO UPDATE SET
            status = excluded.status, approved_amount = excluded.approved_amount,
            approved_currency = excluded.approved_currency, processor_id = excluded.processor_id,
            failure_code = excluded.failure_code, decline_code = excluded.decline_code,
            failure_message = excluded.failure_message, sheet_status = excluded.sheet_status,
            sheet_deadline = excluded.sheet_deadline, updated_at = excluded.updated_at
        """
    /// What saving a refund that exists changes (both stores' upserts end with it).
    package static let refundConflictUpdate = """
        ON CONFLICT (id) DO UPDATE SET
            status = excluded.status, processor_accepted = excluded.processor_accepted,
            processor_id = excluded.processor_id, failure_code = excluded.failure_code,
            outcome_unknown_since = excluded.outcome_unknown_since,
            reconciliation_lookups = excluded.reconciliation_lookups,
            processor_retries = excluded.processor_retries, updated_at = excluded.updated_at
        """

    // MARK: - Reading

    package static func intent(_ row: some StoredRow) throws(PaymentStoreError) -> PaymentIntent {
        let id = row.string(0)
        func corrupt(_ detail: String) -> PaymentStoreError {
            PaymentStoreError(reason: .corruptRow(table: "intents", id: id, detail: detail))
        }
        guard let status = PaymentStatus(rawValue: row.string(1)) else { throw corrupt("unknown status '\(row.string(1))'") }
        guard let captureMethod = CaptureMethod(rawValue: row.string(4)) else { throw corrupt("unknown capture method") }
        let currency = try currencyValue(row.string(3)) { corrupt($0) }
        var inFlight: InFlightOperation?
        if let kindText = row.optionalString(13) {
            guard let kind = InFlightOperation.Kind(rawValue: kindText), let attemptID = row.optionalString(14),
                let inFlightAmount = row.optionalInt64(15), let startedAt = row.optionalInt64(17)
            else { throw corrupt("incomplete in-flight operation") }
            let purpose = try row.optionalString(16).map { text throws(PaymentStoreError) in
                guard let purpose = InFlightOperation.VoidPurpose(rawValue: text) else { throw corrupt("unknown void purpose") }
                return purpose
            }
            inFlight = InFlightOperation(
                kind: kind, attemptID: attemptID, amount: inFlightAmount, voidPurpose: purpose,
                startedAt: date(startedAt), outcomeUnknownSince: row.optionalInt64(18).map(date),
                reconciliationLookups: row.int(19), processorRetries: row.int(20))
        }
        var lastError: PaymentFailure?
        if let codeText = row.optionalString(21) {
            guard let code = FailureCode(rawValue: codeText) else { throw corrupt("unknown failure code '\(codeText)'") }
            lastError = PaymentFailure(
                code: code, declineCode: row.optionalString(22).map(DeclineCode.init), message: row.optionalString(23) ?? "",
                attemptID: row.optionalString(24))
        }
        let cancellation = try row.optionalString(25).map { text throws(PaymentStoreError) in
            guard let reason = CancellationReason(rawValue: text) else { throw corrupt("unknown cancellation reason") }
            return reason
        }
        guard let metadata = Metadata(storedText: row.string(29)) else { throw corrupt("unreadable metadata") }
        return PaymentIntent(
            id: id, amount: Amount(minorUnits: row.int64(2), currency: currency), captureMethod: captureMethod,
            orderReference: row.optionalString(5), status: status, amountAuthorized: row.int64(6),
            amountCaptured: row.int64(7), amountRefunded: row.int64(8), amountRefundPending: row.int64(9),
            captureBefore: row.optionalInt64(10).map(date), attemptCount: row.int(11), currentAttemptID: row.optionalString(12),
            inFlight: inFlight, lastError: lastError, cancellationReason: cancellation, version: row.int64(26),
            createdAt: date(row.int64(27)), updatedAt: date(row.int64(28)), metadata: metadata)
    }

    package static func attempt(_ row: some StoredRow) throws(PaymentStoreError) -> Attempt {
        let id = row.string(0)
        func corrupt(_ detail: String) -> PaymentStoreError {
            PaymentStoreError(reason: .corruptRow(table: "attempts", id: id, detail: detail))
        }
        guard let status = AttemptStatus(rawValue: row.string(3)) else { throw corrupt("unknown status") }
        guard let source = AttemptSource(rawValue: row.string(4)) else { throw corrupt("unknown source") }
        let network = row.optionalString(5).flatMap(PaymentNetwork.init(rawValue:))
        guard let card = CardSummary(
            network: network, last4: row.string(6), expiryMonth: row.optionalInt64(7).map { Int($0) },
            expiryYear: row.optionalInt64(8).map { Int($0) }, eciPresent: row.bool(9))
        else { throw corrupt("invalid card summary") }
        let currency = try currencyValue(row.string(11)) { corrupt($0) }
        var approved: Amount?
        if let approvedMinor = row.optionalInt64(12), let approvedCode = row.optionalString(13) {
            approved = Amount(minorUnits: approvedMinor, currency: try currencyValue(approvedCode) { corrupt($0) })
        }
        var failure: PaymentFailure?
        if let codeText = row.optionalString(15) {
            guard let code = FailureCode(rawValue: codeText) else { throw corrupt("unknown failure code '\(codeText)'") }
            failure = PaymentFailure(
                code: code, declineCode: row.optionalString(16).map(DeclineCode.init), message: row.optionalString(17) ?? "",
                attemptID: id)
        }
        var sheet: SheetState?
        if let sheetText = row.optionalString(18), let deadline = row.optionalInt64(19) {
            switch sheetText {
            case "awaiting_answer": sheet = .awaitingAnswer(deadline: date(deadline))
            case "answered_success": sheet = .answered(.success, deadline: date(deadline))
            case "answered_failure": sheet = .answered(.failure, deadline: date(deadline))
            default: throw corrupt("unknown sheet status")
            }
        }
        return Attempt(
            id: id, intentID: row.string(1), sequence: row.int(2), status: status, source: source, card: card,
            amount: Amount(minorUnits: row.int64(10), currency: currency), approvedAmount: approved,
            processorID: row.optionalString(14), failure: failure, sheet: sheet,
            createdAt: date(row.int64(20)), updatedAt: date(row.int64(21)))
    }

    package static func refund(_ row: some StoredRow) throws(PaymentStoreError) -> Refund {
        let id = row.string(0)
        func corrupt(_ detail: String) -> PaymentStoreError {
            PaymentStoreError(reason: .corruptRow(table: "refunds", id: id, detail: detail))
        }
        guard let status = RefundStatus(rawValue: row.string(5)) else { throw corrupt("unknown status") }
        let reason = try row.optionalString(6).map { text throws(PaymentStoreError) in
            guard let reason = RefundReason(rawValue: text) else { throw corrupt("unknown reason") }
            return reason
        }
        let currency = try currencyValue(row.string(4)) { corrupt($0) }
        return Refund(
            id: id, intentID: row.string(1), attemptID: row.string(2), amount: Amount(minorUnits: row.int64(3), currency: currency),
            status: status, reason: reason, processorAccepted: row.bool(7), processorID: row.optionalString(8),
            failureCode: row.optionalString(9), outcomeUnknownSince: row.optionalInt64(10).map(date),
            reconciliationLookups: row.int(11), processorRetries: row.int(12),
            createdAt: date(row.int64(13)), updatedAt: date(row.int64(14)))
    }

    private static func currencyValue(_ code: String, _ corrupt: (String) -> PaymentStoreError) throws(PaymentStoreError) -> Currency {
        do {
            return try Currency(code: code)
        } catch {
            throw corrupt("unknown currency '\(code)'")
        }
    }

    package static func date(_ milliseconds: Int64) -> Date {
        Timestamp.date(epochMilliseconds: milliseconds)
    }

    // MARK: - Writing

    static func insertIntent(_ intent: PaymentIntent, into database: Database) throws {
        try database.execute(
            insertIntentSQL,
            intentValues(intent))
    }

    /// Writes `intent` over the row still at `previousVersion`; false when that row moved on.
    static func updateIntent(_ intent: PaymentIntent, previousVersion: Int64, in database: Database) throws -> Bool {
        try database.execute(
            updateIntentSQL,
            changingIntentValues(intent) + [intent.id, previousVersion])
        return database.changes == 1
    }

    /// The values of `intentColumns`, in order.
    package static func intentValues(_ intent: PaymentIntent) -> [any DatabaseBindable] {
        let progress = progressValues(intent)
        return [intent.id, intent.status.rawValue, intent.amount.minorUnits, intent.currency.code, intent.captureMethod.rawValue, intent.orderReference]
            + progress + [intent.version, intent.createdAt, intent.updatedAt, intent.metadata.storedText]
    }

    /// The values of `intentChangingColumns`, in order.
    package static func changingIntentValues(_ intent: PaymentIntent) -> [any DatabaseBindable] {
        [intent.status.rawValue] + progressValues(intent) + [intent.version, intent.updatedAt]
    }

    /// From amount_authorized to cancellation_reason: the columns both lists share.
    private static func progressValues(_ intent: PaymentIntent) -> [any DatabaseBindable] {
        let inFlight = intent.inFlight
        let failure = intent.lastError
        return [
            intent.amountAuthorized, intent.amountCaptured, intent.amountRefunded, intent.amountRefundPending,
            intent.captureBefore, intent.attemptCount, intent.currentAttemptID,
            inFlight?.kind.rawValue, inFlight?.attemptID, inFlight?.amount, inFlight?.voidPurpose?.rawValue, inFlight?.startedAt,
            inFlight?.outcomeUnknownSince, inFlight?.reconciliationLookups ?? 0, inFlight?.processorRetries ?? 0,
            failure?.code.rawValue, failure?.declineCode?.rawValue, failure?.message, failure?.attemptID,
            intent.cancellationReason?.rawValue,
        ]
    }

    static func upsertAttempt(_ attempt: Attempt, in database: Database) throws {
        try database.execute(upsertAttemptSQL, attemptValues(attempt))
    }

    /// The values of `attemptColumns`, in order.
    package static func attemptValues(_ attempt: Attempt) -> [any DatabaseBindable] {
        let sheetStatus: String? = switch attempt.sheet {
        case .awaitingAnswer: "awaiting_answer"
        case .answered(.success, _): "answered_success"
        case .answered(.failure, _): "answered_failure"
        case nil: nil
        }
        return [
            attempt.id, attempt.intentID, attempt.sequence, attempt.status.rawValue, attempt.source.rawValue,
            attempt.card.network?.rawValue, attempt.card.last4, attempt.card.expiryMonth, attempt.card.expiryYear,
            attempt.card.eciPresent, attempt.amount.minorUnits, attempt.amount.currency.code,
            attempt.approvedAmount?.minorUnits, attempt.approvedAmount?.currency.code, attempt.processorID,
            attempt.failure?.code.rawValue, attempt.failure?.declineCode?.rawValue, attempt.failure?.message,
            sheetStatus, attempt.sheet?.deadline, attempt.createdAt, attempt.updatedAt,
        ]
    }

    static func upsertRefund(_ refund: Refund, in database: Database) throws {
        try database.execute(upsertRefundSQL, refundValues(refund))
    }

    /// The values of `refundColumns`, in order.
    package static func refundValues(_ refund: Refund) -> [any DatabaseBindable] {
        [
            refund.id, refund.intentID, refund.attemptID, refund.amount.minorUnits, refund.amount.currency.code,
            refund.status.rawValue, refund.reason?.rawValue, refund.processorAccepted, refund.processorID,
            refund.failureCode, refund.outcomeUnknownSince, refund.reconciliationLookups, refund.processorRetries,
            refund.createdAt, refund.updatedAt,
        ]
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
