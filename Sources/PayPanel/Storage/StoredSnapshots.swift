import Foundation

// The library's own Codable snapshots of an intent, an attempt and a refund, for what it stores
// as JSON (idempotency results, `StoredPaymentResult`; outbox payloads, `OutboxPayload`). Their
// field names are the stored formats', not `--json`'s nor the API's, and not the Swift
// properties' either: renaming a property of `PaymentIntent` renames nothing stored. Change a
// field only with a new format version.

/// The JSON coding of the stored formats, in one place.
enum StoredJSON {
    /// `value` as JSON text, keys sorted so equal values give equal text (the text
    /// `JSONEncoder` wrote before: `JSONWriter.string(encoding:)`).
    static func encode<T: Encodable>(_ value: T) -> String {
        // The snapshots hold strings, numbers, Bools, dates and optionals of them: encoding
        // cannot fail.
        (try? JSONWriter.string(encoding: value)) ?? ""
    }

    /// The format version `text` declares in `versionKey` — nil when it has none, which is
    /// version 0, the JSON written before the format had versions — and its JSON. A version
    /// other than `newest` (the only one after 0 so far) is refused, never guessed at.
    static func read(_ text: String, versionKey: String, newest: Int) throws(StoredFormatError) -> (version: Int64?, json: JSONValue) {
        let json: JSONValue
        do { json = try JSONParser().parse(text) } catch { throw .notJSON }
        guard let declared = json[versionKey] else { return (nil, json) }
        guard let version = declared.int64Value else { throw .unsupportedVersion(found: nil, newest: newest) }
        guard version == Int64(newest) else { throw .unsupportedVersion(found: version, newest: newest) }
        return (version, json)
    }

    /// `json` (what `read` parsed) decoded as `type`; a missing or wrong field is `malformed`,
    /// naming the field. The text is not parsed again.
    static func decode<T: Decodable>(_ type: T.Type, from json: JSONValue) throws(StoredFormatError) -> T {
        do {
            return try json.decoded(as: type)
        } catch let error as DecodingError {
            throw .malformed(error.summary)
        } catch {
            throw .malformed(String(describing: error))
        }
    }
}

extension StoredJSON {
    /// The amount of a stored minor-unit count and ISO currency code.
    static func amount(_ minorUnits: Int64, _ code: String) throws(StoredFormatError) -> Amount {
        do { return Amount(minorUnits: minorUnits, currency: try Currency(code: code)) } catch {
            throw .malformed("currency \"\(code)\" is unknown")
        }
    }

    /// The case of `type` a stored raw value names.
    static func enumCase<T: RawRepresentable>(_ raw: String, of type: T.Type) throws(StoredFormatError) -> T where T.RawValue == String {
        guard let value = T(rawValue: raw) else { throw .malformed("\"\(raw)\" is not a \(T.self)") }
        return value
    }
}

struct FailureRecord: Codable {
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

    func model() throws(StoredFormatError) -> PaymentFailure {
        PaymentFailure(
            code: try StoredJSON.enumCase(code, of: FailureCode.self), declineCode: declineCode.map(DeclineCode.init), message: message,
            attemptID: attemptID)
    }
}

struct InFlightRecord: Codable {
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

    func model() throws(StoredFormatError) -> InFlightOperation {
        InFlightOperation(
            kind: try StoredJSON.enumCase(kind, of: InFlightOperation.Kind.self), attemptID: attemptID, amount: amount,
            voidPurpose: try voidPurpose.map { raw throws(StoredFormatError) in try StoredJSON.enumCase(raw, of: InFlightOperation.VoidPurpose.self) },
            startedAt: startedAt, outcomeUnknownSince: outcomeUnknownSince, reconciliationLookups: reconciliationLookups,
            processorRetries: processorRetries)
    }
}

struct IntentRecord: Codable {
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

    func model() throws(StoredFormatError) -> PaymentIntent {
        let checkedMetadata: Metadata
        do { checkedMetadata = try Metadata(metadata) } catch { throw .malformed("the intent's metadata: \(error.message)") }
        return PaymentIntent(
            id: id, amount: try StoredJSON.amount(amount, currency), captureMethod: try StoredJSON.enumCase(captureMethod, of: CaptureMethod.self),
            orderReference: orderReference, status: try StoredJSON.enumCase(status, of: PaymentStatus.self), amountAuthorized: amountAuthorized,
            amountCaptured: amountCaptured, amountRefunded: amountRefunded, amountRefundPending: amountRefundPending,
            captureBefore: captureBefore, attemptCount: attemptCount, currentAttemptID: currentAttemptID,
            inFlight: try inFlight?.model(), lastError: try lastError?.model(),
            cancellationReason: try cancellationReason.map { raw throws(StoredFormatError) in try StoredJSON.enumCase(raw, of: CancellationReason.self) },
            version: version, createdAt: createdAt, updatedAt: updatedAt, metadata: checkedMetadata)
    }
}

struct AttemptRecord: Codable {
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

    func model() throws(StoredFormatError) -> Attempt {
        let cardNetwork = try network.map { raw throws(StoredFormatError) in try StoredJSON.enumCase(raw, of: PaymentNetwork.self) }
        guard let card = CardSummary(
            network: cardNetwork, last4: last4, expiryMonth: expiryMonth, expiryYear: expiryYear, eciPresent: eciPresent)
        else { throw .malformed("attempt \(id)'s card summary is not valid") }
        var approved: Amount?
        if let approvedAmount { approved = try StoredJSON.amount(approvedAmount, approvedCurrency ?? currency) }
        var sheet: SheetState?
        if let sheetDeadline {
            sheet = try sheetAnswer.map { raw throws(StoredFormatError) in .answered(try StoredJSON.enumCase(raw, of: SheetAnswer.self), deadline: sheetDeadline) }
                ?? .awaitingAnswer(deadline: sheetDeadline)
        }
        return Attempt(
            id: id, intentID: intentID, sequence: sequence, status: try StoredJSON.enumCase(status, of: AttemptStatus.self),
            source: try StoredJSON.enumCase(source, of: AttemptSource.self), card: card, amount: try StoredJSON.amount(amount, currency), approvedAmount: approved,
            processorID: processorID, failure: try failure?.model(), sheet: sheet, createdAt: createdAt, updatedAt: updatedAt)
    }
}

struct RefundRecord: Codable {
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

    func model() throws(StoredFormatError) -> Refund {
        Refund(
            id: id, intentID: intentID, attemptID: attemptID, amount: try StoredJSON.amount(amount, currency),
            status: try StoredJSON.enumCase(status, of: RefundStatus.self),
            reason: try reason.map { raw throws(StoredFormatError) in try StoredJSON.enumCase(raw, of: RefundReason.self) },
            processorAccepted: processorAccepted, processorID: processorID, failureCode: failureCode,
            outcomeUnknownSince: outcomeUnknownSince, reconciliationLookups: reconciliationLookups, processorRetries: processorRetries,
            createdAt: createdAt, updatedAt: updatedAt)
    }
}
