import Foundation

/// What an idempotency row keeps as the answer to replay: typed values, never a front end's
/// rendering. The CLI renders an intent or an outcome with its own `--json`, the HTTP API with
/// its own objects, each at replay time, so a change of either rendering cannot change what a
/// stored key replays.
package enum IdempotentPayload: Sendable, Equatable {
    /// The intent `createIntent` created, as it was then.
    case intent(PaymentIntent)
    /// Where an intent stood after an operation (`PaymentOutcome`'s parts).
    case outcome(intent: PaymentIntent, attempt: Attempt?, refund: Refund?)
    /// The whole answer of an HTTP route (the API's idempotency wraps the response at its edge,
    /// whichever route it is): its status and its JSON body.
    case httpResponse(status: Int, body: JSONValue)
    /// A row stored before results were typed (format version 0): the JSON its front end wrote,
    /// handed back as it was so it replays exactly as before. Nothing writes one any more.
    case version0(JSONValue)
}

/// The one place a stored result is encoded and decoded: the text in an idempotency row's
/// `response` column.
///
/// Version 1 is `{"resultVersion": 1, "payload": {"kind": …, …}}`, written by `JSONEncoder`
/// with sorted keys from the snapshot types below, whose field names are this format's own
/// (renaming a property of `PaymentIntent` does not rename them). Dates are seconds since
/// 2001-01-01 as `Date` encodes them, which round-trips exactly. Text without `resultVersion`
/// is version 0, the JSON rows held before. A version newer than this build reads is refused,
/// never guessed at.
package enum StoredPaymentResult {
    /// The version this build writes, and the newest it reads.
    package static let currentVersion = 1

    /// The row text of `payload`.
    package static func encode(_ payload: IdempotentPayload) -> String {
        if case .version0(let value) = payload { return JSONWriter.string(value) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every member is a string, number, Bool, date or array of them: encoding cannot fail.
        let data = (try? encoder.encode(Envelope(resultVersion: currentVersion, payload: PayloadRecord(payload)))) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// The payload of row text `text`, version 0 or 1.
    package static func decode(_ text: String) throws(StoredResultError) -> IdempotentPayload {
        let value: JSONValue
        do { value = try JSONParser().parse(text) } catch { throw .notJSON }
        guard let version = value["resultVersion"] else { return .version0(value) }
        guard let number = version.int64Value else { throw .unsupportedVersion(nil) }
        guard number == Int64(currentVersion) else { throw .unsupportedVersion(number) }
        do {
            return try JSONDecoder().decode(Envelope.self, from: Data(text.utf8)).payload.payload()
        } catch let error as StoredResultError {
            throw error
        } catch {
            throw .malformed(String(describing: error))
        }
    }

    private struct Envelope: Codable {
        let resultVersion: Int
        let payload: PayloadRecord
    }
}

/// Why a stored result cannot be read back.
package enum StoredResultError: Error, Equatable {
    /// The text is not JSON (the row was edited by hand).
    case notJSON
    /// A `resultVersion` this build does not read (nil: not a number), written by a newer build.
    case unsupportedVersion(Int64?)
    /// Version 1 text missing a field or holding a wrong value (the detail says which).
    case malformed(String)

    /// A sentence for the person who sees it.
    package var detail: String {
        switch self {
        case .notJSON: "it is not JSON"
        case .unsupportedVersion(let version?):
            "it is in stored-result format version \(version), and this PayPanel reads versions 0 to \(StoredPaymentResult.currentVersion): run the version that stored it or a newer one"
        case .unsupportedVersion(nil): "its resultVersion is not a number"
        case .malformed(let detail): "it does not match stored-result format version \(StoredPaymentResult.currentVersion) (\(detail))"
        }
    }
}

// MARK: - Format version 1

/// `{"kind": "intent" | "outcome" | "http_response", …}`.
private struct PayloadRecord: Codable {
    var kind: String
    var intent: IntentRecord?
    var attempt: AttemptRecord?
    var refund: RefundRecord?
    var status: Int?
    /// The HTTP body as JSON text.
    var body: String?

    init(_ payload: IdempotentPayload) {
        switch payload {
        case .intent(let intent):
            kind = "intent"
            self.intent = IntentRecord(intent)
        case .outcome(let intent, let attempt, let refund):
            kind = "outcome"
            self.intent = IntentRecord(intent)
            self.attempt = attempt.map(AttemptRecord.init)
            self.refund = refund.map(RefundRecord.init)
        case .httpResponse(let status, let body):
            kind = "http_response"
            self.status = status
            self.body = JSONWriter.string(body)
        case .version0:
            preconditionFailure("version 0 is written as it was read (StoredPaymentResult.encode)")
        }
    }

    func payload() throws(StoredResultError) -> IdempotentPayload {
        switch kind {
        case "intent":
            guard let intent else { throw .malformed("an intent payload without its intent") }
            return .intent(try intent.model())
        case "outcome":
            guard let intent else { throw .malformed("an outcome payload without its intent") }
            return .outcome(intent: try intent.model(), attempt: try attempt?.model(), refund: try refund?.model())
        case "http_response":
            guard let status, let body else { throw .malformed("an http_response payload without its status or body") }
            do { return .httpResponse(status: status, body: try JSONParser().parse(body)) } catch {
                throw .malformed("an http_response body that is not JSON")
            }
        default:
            throw .malformed("payload kind \"\(kind)\" is unknown")
        }
    }
}

private func storedAmount(_ minorUnits: Int64, _ code: String) throws(StoredResultError) -> Amount {
    do { return Amount(minorUnits: minorUnits, currency: try Currency(code: code)) } catch {
        throw .malformed("currency \"\(code)\" is unknown")
    }
}

private func value<T: RawRepresentable>(_ raw: String, as type: T.Type) throws(StoredResultError) -> T where T.RawValue == String {
    guard let value = T(rawValue: raw) else { throw .malformed("\"\(raw)\" is not a \(T.self)") }
    return value
}

private struct FailureRecord: Codable {
    var code: String
    var declineCode: String?
    var message: String
    var attemptID: String?

    init(_ failure: PaymentFailure) {
        code = failure.code.rawValue
        declineCode = failure.declineCode?.rawValue
        message = failure.message
        attemptID = failure.attemptID
    }

    func model() throws(StoredResultError) -> PaymentFailure {
        PaymentFailure(
            code: try value(code, as: FailureCode.self), declineCode: declineCode.map(DeclineCode.init), message: message,
            attemptID: attemptID)
    }
}

private struct InFlightRecord: Codable {
    var kind: String
    var attemptID: String
    var amount: Int64
    var voidPurpose: String?
    var startedAt: Date
    var outcomeUnknownSince: Date?
    var reconciliationLookups: Int
    var processorRetries: Int

    init(_ operation: InFlightOperation) {
        kind = operation.kind.rawValue
        attemptID = operation.attemptID
        amount = operation.amount
        voidPurpose = operation.voidPurpose?.rawValue
        startedAt = operation.startedAt
        outcomeUnknownSince = operation.outcomeUnknownSince
        reconciliationLookups = operation.reconciliationLookups
        processorRetries = operation.processorRetries
    }

    func model() throws(StoredResultError) -> InFlightOperation {
        InFlightOperation(
            kind: try value(kind, as: InFlightOperation.Kind.self), attemptID: attemptID, amount: amount,
            voidPurpose: try voidPurpose.map { raw throws(StoredResultError) in try value(raw, as: InFlightOperation.VoidPurpose.self) },
            startedAt: startedAt, outcomeUnknownSince: outcomeUnknownSince, reconciliationLookups: reconciliationLookups,
            processorRetries: processorRetries)
    }
}

private struct IntentRecord: Codable {
    var id: String
    var amount: Int64
    var currency: String
    var captureMethod: String
    var orderReference: String?
    var metadata: [String: String]
    var status: String
    var amountAuthorized: Int64
    var amountCaptured: Int64
    var amountRefunded: Int64
    var amountRefundPending: Int64
    var captureBefore: Date?
    var attemptCount: Int
    var currentAttemptID: String?
    var inFlight: InFlightRecord?
    var lastError: FailureRecord?
    var cancellationReason: String?
    var version: Int64
    var createdAt: Date
    var updatedAt: Date

    init(_ intent: PaymentIntent) {
        id = intent.id
        amount = intent.amount.minorUnits
        currency = intent.amount.currency.code
        captureMethod = intent.captureMethod.rawValue
        orderReference = intent.orderReference
        metadata = intent.metadata.values
        status = intent.status.rawValue
        amountAuthorized = intent.amountAuthorized
        amountCaptured = intent.amountCaptured
        amountRefunded = intent.amountRefunded
        amountRefundPending = intent.amountRefundPending
        captureBefore = intent.captureBefore
        attemptCount = intent.attemptCount
        currentAttemptID = intent.currentAttemptID
        inFlight = intent.inFlight.map(InFlightRecord.init)
        lastError = intent.lastError.map(FailureRecord.init)
        cancellationReason = intent.cancellationReason?.rawValue
        version = intent.version
        createdAt = intent.createdAt
        updatedAt = intent.updatedAt
    }

    func model() throws(StoredResultError) -> PaymentIntent {
        let checkedMetadata: Metadata
        do { checkedMetadata = try Metadata(metadata) } catch { throw .malformed("the intent's metadata: \(error.message)") }
        return PaymentIntent(
            id: id, amount: try storedAmount(amount, currency), captureMethod: try value(captureMethod, as: CaptureMethod.self),
            orderReference: orderReference, status: try value(status, as: PaymentStatus.self), amountAuthorized: amountAuthorized,
            amountCaptured: amountCaptured, amountRefunded: amountRefunded, amountRefundPending: amountRefundPending,
            captureBefore: captureBefore, attemptCount: attemptCount, currentAttemptID: currentAttemptID,
            inFlight: try inFlight?.model(), lastError: try lastError?.model(),
            cancellationReason: try cancellationReason.map { raw throws(StoredResultError) in try value(raw, as: CancellationReason.self) },
            version: version, createdAt: createdAt, updatedAt: updatedAt, metadata: checkedMetadata)
    }
}

private struct AttemptRecord: Codable {
    var id: String
    var intentID: String
    var sequence: Int
    var status: String
    var source: String
    var network: String?
    var last4: String
    var expiryMonth: Int?
    var expiryYear: Int?
    var eciPresent: Bool
    var amount: Int64
    var currency: String
    var approvedAmount: Int64?
    var approvedCurrency: String?
    var processorID: String?
    var failure: FailureRecord?
    /// The Apple Pay sheet's deadline, and its answer once given.
    var sheetDeadline: Date?
    var sheetAnswer: String?
    var createdAt: Date
    var updatedAt: Date

    init(_ attempt: Attempt) {
        id = attempt.id
        intentID = attempt.intentID
        sequence = attempt.sequence
        status = attempt.status.rawValue
        source = attempt.source.rawValue
        network = attempt.card.network?.rawValue
        last4 = attempt.card.last4
        expiryMonth = attempt.card.expiryMonth
        expiryYear = attempt.card.expiryYear
        eciPresent = attempt.card.eciPresent
        amount = attempt.amount.minorUnits
        currency = attempt.amount.currency.code
        approvedAmount = attempt.approvedAmount?.minorUnits
        approvedCurrency = attempt.approvedAmount?.currency.code
        processorID = attempt.processorID
        failure = attempt.failure.map(FailureRecord.init)
        sheetDeadline = attempt.sheet?.deadline
        sheetAnswer = attempt.sheet?.answer?.rawValue
        createdAt = attempt.createdAt
        updatedAt = attempt.updatedAt
    }

    func model() throws(StoredResultError) -> Attempt {
        let cardNetwork = try network.map { raw throws(StoredResultError) in try value(raw, as: PaymentNetwork.self) }
        guard let card = CardSummary(
            network: cardNetwork, last4: last4, expiryMonth: expiryMonth, expiryYear: expiryYear, eciPresent: eciPresent)
        else { throw .malformed("attempt \(id)'s card summary is not valid") }
        var approved: Amount?
        if let approvedAmount { approved = try storedAmount(approvedAmount, approvedCurrency ?? currency) }
        var sheet: SheetState?
        if let sheetDeadline {
            sheet = try sheetAnswer.map { raw throws(StoredResultError) in .answered(try value(raw, as: SheetAnswer.self), deadline: sheetDeadline) }
                ?? .awaitingAnswer(deadline: sheetDeadline)
        }
        return Attempt(
            id: id, intentID: intentID, sequence: sequence, status: try value(status, as: AttemptStatus.self),
            source: try value(source, as: AttemptSource.self), card: card, amount: try storedAmount(amount, currency), approvedAmount: approved,
            processorID: processorID, failure: try failure?.model(), sheet: sheet, createdAt: createdAt, updatedAt: updatedAt)
    }
}

private struct RefundRecord: Codable {
    var id: String
    var intentID: String
    var attemptID: String
    var amount: Int64
    var currency: String
    var status: String
    var reason: String?
    var processorAccepted: Bool
    var processorID: String?
    var failureCode: String?
    var outcomeUnknownSince: Date?
    var reconciliationLookups: Int
    var processorRetries: Int
    var createdAt: Date
    var updatedAt: Date

    init(_ refund: Refund) {
        id = refund.id
        intentID = refund.intentID
        attemptID = refund.attemptID
        amount = refund.amount.minorUnits
        currency = refund.amount.currency.code
        status = refund.status.rawValue
        reason = refund.reason?.rawValue
        processorAccepted = refund.processorAccepted
        processorID = refund.processorID
        failureCode = refund.failureCode
        outcomeUnknownSince = refund.outcomeUnknownSince
        reconciliationLookups = refund.reconciliationLookups
        processorRetries = refund.processorRetries
        createdAt = refund.createdAt
        updatedAt = refund.updatedAt
    }

    func model() throws(StoredResultError) -> Refund {
        Refund(
            id: id, intentID: intentID, attemptID: attemptID, amount: try storedAmount(amount, currency),
            status: try value(status, as: RefundStatus.self),
            reason: try reason.map { raw throws(StoredResultError) in try value(raw, as: RefundReason.self) },
            processorAccepted: processorAccepted, processorID: processorID, failureCode: failureCode,
            outcomeUnknownSince: outcomeUnknownSince, reconciliationLookups: reconciliationLookups, processorRetries: processorRetries,
            createdAt: createdAt, updatedAt: updatedAt)
    }
}
