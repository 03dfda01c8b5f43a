import Foundation

/// Turns a stored history row (`events`: type + JSON data) back into the `PaymentEvent` that
/// produced it, so the history can be replayed through `PaymentStateMachine`.
///
/// The history keeps each event's data without card data (`PaymentEvent.data`): attempts carry
/// the card summary as text, processor texts are redacted. What the text form cannot say (a
/// 2-digit expiry year's century, whether a token carried an ECI) is taken from `attempts`, the
/// stored attempt rows, and only for fields the state machine copies verbatim.
package struct StoredEventDecoder {
    /// Attempts as stored, by id: the source of the card summary's ECI flag and full expiry year.
    package let storedAttempts: [String: Attempt]

    /// A decoder for one intent's history, with that intent's stored attempts.
    package init(storedAttempts: [Attempt]) {
        self.storedAttempts = Dictionary(storedAttempts.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The event of `record`, or a `HistoryDecodingError` naming the field that does not decode.
    package func event(_ record: PaymentEventRecord) throws(HistoryDecodingError) -> PaymentEvent {
        let data: JSONValue
        do {
            data = try JSONParser().parse(Array(record.data.utf8))
        } catch {
            throw HistoryDecodingError(version: record.version, type: record.type, reason: "its data is not JSON (\(error.message))")
        }
        let reader = FieldDecoder(record: record, data: data)
        let type = record.type
        switch type {
        case "attempt_opened":
            let attemptID = try reader.string("attemptId")
            guard let source = AttemptSource(rawValue: try reader.string("source")) else { throw reader.failure("source") }
            let amount = try reader.amount("amount", currency: "currency")
            let card = try cardSummary(try reader.string("card"), attemptID: attemptID, reader: reader)
            return .attemptOpened(AttemptOpening(
                attemptID: attemptID, source: source, card: card, amount: amount, answersPaymentSheet: try reader.bool("answersPaymentSheet")))
        case "challenge_passed": return .challengePassed(attemptID: try reader.string("attemptId"))
        case "challenge_failed": return .challengeFailed(attemptID: try reader.string("attemptId"))
        case "challenge_abandoned": return .challengeAbandoned(attemptID: try reader.string("attemptId"))
        case "sheet_answer_due": return .sheetAnswerDue(attemptID: try reader.string("attemptId"))
        case "capture_requested": return .captureRequested(amount: try reader.optionalInt("amount"))
        case "cancel_requested":
            guard let reason = CancellationReason(rawValue: try reader.string("reason")) else { throw reader.failure("reason") }
            return .cancelRequested(reason: reason)
        case "refund_requested":
            let reasonText = try reader.optionalString("reason")
            let reason = try reasonText.map { text throws(HistoryDecodingError) in
                guard let reason = RefundReason(rawValue: text) else { throw reader.failure("reason") }
                return reason
            }
            return .refundRequested(refundID: try reader.string("refundId"), amount: try reader.int("amount"), reason: reason)
        case "operator_resolved":
            return .operatorResolved(try resolution(reader), try operatorRecord(reader))
        default:
            break
        }
        if type.hasPrefix("timer_") {
            guard let kind = PaymentTimer.Kind(rawValue: try reader.string("timer")) else { throw reader.failure("timer") }
            return .timerFired(kind, reference: try reader.string("reference"))
        }
        let call = try processorCall(reader)
        if type.hasPrefix("reconciled_") && type.hasSuffix("_not_found") { return .reconciliationNotFound(call) }
        if type.hasPrefix("reconciliation_") && type.hasSuffix("_unavailable") {
            return .reconciliationUnavailable(call, reason: try reader.string("reason"))
        }
        if type.hasPrefix("reconciliation_") && type.hasSuffix("_exhausted") { return .reconciliationExhausted(call) }
        let outcome = try processorOutcome(reader)
        return type.hasPrefix("reconciled_") ? .reconciliationFound(call, outcome) : .processorAnswered(call, outcome)
    }

    // MARK: - Parts

    private func processorCall(_ reader: FieldDecoder) throws(HistoryDecodingError) -> ProcessorCall {
        let call = try reader.object("call")
        let reference = try call.string("reference")
        switch try call.string("operation") {
        case "authorize": return .authorize(attemptID: reference)
        case "complete_challenge": return .completeChallenge(attemptID: reference)
        case "capture": return .capture(attemptID: reference)
        case "void": return .void(attemptID: reference)
        case "refund": return .refund(refundID: reference)
        default: throw call.failure("operation")
        }
    }

    private func processorOutcome(_ reader: FieldDecoder) throws(HistoryDecodingError) -> ProcessorOutcome {
        let outcome = try reader.object("outcome")
        switch try outcome.string("result") {
        case "approved":
            let expiresAt = try outcome.optionalString("expiresAt").map { text throws(HistoryDecodingError) in
                do { return try Timestamp.parse(text) } catch { throw outcome.failure("expiresAt") }
            }
            return .approved(ProcessorApproval(
                amount: try outcome.amount("amount", currency: "currency"), processorID: try outcome.string("processorId"), expiresAt: expiresAt))
        case "declined": return .declined(DeclineCode(try outcome.string("declineCode")))
        case "challenge_required": return .challengeRequired
        case "pending": return .pending
        case "not_processed": return .notProcessed(reason: try outcome.string("reason"))
        case "unknown": return .unknown(reason: try outcome.string("reason"))
        default: throw outcome.failure("result")
        }
    }

    private func resolution(_ reader: FieldDecoder) throws(HistoryDecodingError) -> OperatorResolution {
        let name = try reader.string("resolution")
        switch name {
        case "mark_refund_succeeded": return .refund(refundID: try reader.string("refundId"), succeeded: true)
        case "mark_refund_failed": return .refund(refundID: try reader.string("refundId"), succeeded: false)
        default:
            guard let resolution = IntentResolution(storedName: name) else { throw reader.failure("resolution") }
            return .intent(resolution)
        }
    }

    /// Who resolved, why, whether it was forced, and what the processor held. The texts are
    /// checked again as when they were recorded: a note that would be refused now was not
    /// written by this program.
    private func operatorRecord(_ reader: FieldDecoder) throws(HistoryDecodingError) -> OperatorRecord {
        let note = try reader.string("note")
        let actor = try reader.string("operator")
        let forced = try reader.bool("forced")
        var holding: ProcessorHolding?
        if let value = reader.data["processor"], value != .null {
            holding = try processorHolding(try reader.object("processor"))
        }
        do {
            return try OperatorRecord(note: note, actor: actor, forced: forced, processor: holding)
        } catch {
            throw reader.failure(error.code == "invalid_operator_name" ? "operator" : "note")
        }
    }

    private func processorHolding(_ reader: FieldDecoder) throws(HistoryDecodingError) -> ProcessorHolding {
        switch try reader.string("holding") {
        case "nothing": return .nothingHeld(try reader.string("reason"))
        case "unknown": return .notKnown(try reader.string("reason"))
        case "voided": return .voided
        case "captured": return .captured(try reader.amount("amount", currency: "currency"))
        case "authorization":
            let expiresAt = try reader.optionalString("expiresAt").map { text throws(HistoryDecodingError) in
                do { return try Timestamp.parse(text) } catch { throw reader.failure("expiresAt") }
            }
            return .authorization(HeldAuthorization(
                amount: try reader.amount("amount", currency: "currency"), processorID: try reader.optionalString("processorId"),
                expiresAt: expiresAt))
        default: throw reader.failure("holding")
        }
    }

    /// Parses "visa •••• 4242 exp 12/30" (`CardSummary.description`). The century of the year
    /// and the ECI flag are not in the text: they come from the stored attempt, when it agrees
    /// with the text.
    private func cardSummary(_ text: String, attemptID: String, reader: FieldDecoder) throws(HistoryDecodingError) -> CardSummary {
        let parts = text.split(separator: " ").map(String.init)
        guard parts.count == 3 || parts.count == 5, parts[1] == "••••" else { throw reader.failure("card") }
        let network = parts[0] == "card" ? nil : PaymentNetwork(rawValue: parts[0])
        if parts[0] != "card" && network == nil { throw reader.failure("card") }
        var month: Int?
        var year: Int?
        if parts.count == 5 {
            let expiry = parts[4].split(separator: "/")
            guard parts[3] == "exp", expiry.count == 2, let mm = Int(expiry[0]), let yy = Int(expiry[1]) else { throw reader.failure("card") }
            month = mm
            year = 2000 + yy
        }
        let stored = storedAttempts[attemptID]?.card
        if let stored, let storedYear = stored.expiryYear, let shortYear = year, storedYear % 100 == shortYear % 100 {
            year = storedYear
        }
        guard let summary = CardSummary(
            network: network, last4: parts[2], expiryMonth: month, expiryYear: year, eciPresent: stored?.eciPresent ?? false)
        else { throw reader.failure("card") }
        return summary
    }
}

/// A history row that does not decode back into an event.
package struct HistoryDecodingError: PayPanelError, Equatable {
    package let version: Int64
    package let type: String
    package let reason: String

    package var code: String { "history_undecodable" }
    package var message: String { "event v\(version) (\(type)): \(reason)" }
}

/// Typed reads of one event's JSON data, with errors that name the field.
private struct FieldDecoder {
    let record: PaymentEventRecord
    let data: JSONValue
    var prefix = ""

    init(record: PaymentEventRecord, data: JSONValue, prefix: String = "") {
        self.record = record
        self.data = data
        self.prefix = prefix
    }

    func failure(_ field: String) -> HistoryDecodingError {
        HistoryDecodingError(version: record.version, type: record.type, reason: "field \(prefix)\(field) is missing or malformed")
    }

    func string(_ field: String) throws(HistoryDecodingError) -> String {
        guard let value = data[field]?.stringValue else { throw failure(field) }
        return value
    }

    func optionalString(_ field: String) throws(HistoryDecodingError) -> String? {
        guard let value = data[field], value != .null else { return nil }
        guard let text = value.stringValue else { throw failure(field) }
        return text
    }

    func int(_ field: String) throws(HistoryDecodingError) -> Int64 {
        guard let value = data[field]?.int64Value else { throw failure(field) }
        return value
    }

    func optionalInt(_ field: String) throws(HistoryDecodingError) -> Int64? {
        guard let value = data[field], value != .null else { return nil }
        guard let number = value.int64Value else { throw failure(field) }
        return number
    }

    func bool(_ field: String) throws(HistoryDecodingError) -> Bool {
        guard let value = data[field]?.boolValue else { throw failure(field) }
        return value
    }

    func amount(_ field: String, currency currencyField: String) throws(HistoryDecodingError) -> Amount {
        let minorUnits = try int(field)
        guard let currency = try? Currency(code: try string(currencyField)) else { throw failure(currencyField) }
        return Amount(minorUnits: minorUnits, currency: currency)
    }

    func object(_ field: String) throws(HistoryDecodingError) -> FieldDecoder {
        guard let value = data[field], value.objectValue != nil else { throw failure(field) }
        return FieldDecoder(record: record, data: value, prefix: prefix + field + ".")
    }
}
