import Foundation

// Reading the JSON forms of `PaymentJSON.swift` back into values: an idempotent replay hands
// the caller the same typed outcome the first run returned, decoded from the stored snapshot
// (what was true then, even if the intent moved on since). Fields the JSON form does not show
// (a refund's reconciliation counters) come back as their defaults.

/// A stored snapshot that does not decode: the store holds something this program did not write.
public struct PaymentSnapshotError: PayPanelError, Equatable {
    /// `intent`, `attempt`, `refund`, …
    public let object: String
    public let field: String

    public var code: String { "snapshot_unreadable" }
    public var message: String {
        "a stored \(object) snapshot cannot be read (field \(field) is missing or malformed): the stored result was not written by this program"
    }
}

/// Field access that names the field when it is missing.
struct SnapshotReader {
    let json: JSONValue
    let object: String

    func fail(_ field: String) -> PaymentSnapshotError { PaymentSnapshotError(object: object, field: field) }

    func string(_ field: String) throws(PaymentSnapshotError) -> String {
        guard let value = json[field]?.stringValue else { throw fail(field) }
        return value
    }

    func optionalString(_ field: String) -> String? { json[field]?.stringValue }

    func int64(_ field: String) throws(PaymentSnapshotError) -> Int64 {
        guard let value = json[field]?.int64Value else { throw fail(field) }
        return value
    }

    func optionalInt64(_ field: String) -> Int64? { json[field]?.int64Value }

    func bool(_ field: String) throws(PaymentSnapshotError) -> Bool {
        guard let value = json[field]?.boolValue else { throw fail(field) }
        return value
    }

    func date(_ field: String) throws(PaymentSnapshotError) -> Date {
        guard let text = json[field]?.stringValue, let date = try? Timestamp.parse(text) else { throw fail(field) }
        return date
    }

    func optionalDate(_ field: String) throws(PaymentSnapshotError) -> Date? {
        guard let value = json[field], value.stringValue != nil else { return nil }
        return try date(field)
    }

    func value<T: RawRepresentable>(_ field: String, as type: T.Type) throws(PaymentSnapshotError) -> T where T.RawValue == String {
        guard let value = T(rawValue: try string(field)) else { throw fail(field) }
        return value
    }

    func optionalValue<T: RawRepresentable>(_ field: String, as type: T.Type) throws(PaymentSnapshotError) -> T? where T.RawValue == String {
        guard let text = optionalString(field) else { return nil }
        guard let value = T(rawValue: text) else { throw fail(field) }
        return value
    }

    func amount(_ field: String, currencyField: String) throws(PaymentSnapshotError) -> Amount {
        guard let currency = try? Currency(code: try string(currencyField)) else { throw fail(currencyField) }
        return Amount(minorUnits: try int64(field), currency: currency)
    }

    /// Metadata, or none when the snapshot predates it (the field is absent).
    func metadata(_ field: String) throws(PaymentSnapshotError) -> Metadata {
        guard let value = json[field] else { return .empty }
        guard let metadata = Metadata(json: value) else { throw fail(field) }
        return metadata
    }

    func nested(_ field: String) -> SnapshotReader? {
        guard let value = json[field], case .object = value else { return nil }
        return SnapshotReader(json: value, object: object)
    }
}

extension PaymentIntent {
    /// The intent of a stored snapshot (`json`).
    public init(snapshot json: JSONValue) throws(PaymentSnapshotError) {
        let reader = SnapshotReader(json: json, object: "payment intent")
        var inFlight: InFlightOperation?
        if let processing = reader.nested("processing") {
            inFlight = InFlightOperation(
                kind: try processing.value("operation", as: InFlightOperation.Kind.self),
                attemptID: try processing.string("attemptId"), amount: try processing.int64("amount"),
                voidPurpose: try processing.optionalValue("voidPurpose", as: InFlightOperation.VoidPurpose.self),
                startedAt: try processing.date("startedAt"), outcomeUnknownSince: try processing.optionalDate("outcomeUnknownSince"),
                reconciliationLookups: Int(try processing.int64("reconciliationLookups")),
                processorRetries: Int(try processing.int64("processorRetries")))
        }
        self.init(
            id: try reader.string("id"), amount: try reader.amount("amount", currencyField: "currency"),
            captureMethod: try reader.value("captureMethod", as: CaptureMethod.self), orderReference: reader.optionalString("orderReference"),
            status: try reader.value("status", as: PaymentStatus.self), amountAuthorized: try reader.int64("amountAuthorized"),
            amountCaptured: try reader.int64("amountCaptured"), amountRefunded: try reader.int64("amountRefunded"),
            amountRefundPending: try reader.int64("amountRefundPending"), captureBefore: try reader.optionalDate("captureBefore"),
            attemptCount: Int(try reader.int64("attemptCount")), currentAttemptID: reader.optionalString("currentAttemptId"),
            inFlight: inFlight, lastError: try reader.nested("lastError").map { reader throws(PaymentSnapshotError) in try PaymentFailure(reader) },
            cancellationReason: try reader.optionalValue("cancellationReason", as: CancellationReason.self),
            version: try reader.int64("version"), createdAt: try reader.date("createdAt"), updatedAt: try reader.date("updatedAt"),
            metadata: try reader.metadata("metadata"))
    }
}

extension PaymentFailure {
    init(_ reader: SnapshotReader) throws(PaymentSnapshotError) {
        self.init(
            code: try reader.value("code", as: FailureCode.self), declineCode: reader.optionalString("declineCode").map(DeclineCode.init),
            message: try reader.string("message"), attemptID: reader.optionalString("attemptId"))
    }
}

extension Attempt {
    /// The attempt of a stored snapshot (`json`).
    public init(snapshot json: JSONValue) throws(PaymentSnapshotError) {
        let reader = SnapshotReader(json: json, object: "attempt")
        let network = try reader.optionalString("network").map { text throws(PaymentSnapshotError) in
            guard let network = PaymentNetwork(rawValue: text) else { throw reader.fail("network") }
            return network
        }
        guard let card = CardSummary(
            network: network, last4: try reader.string("last4"), expiryMonth: reader.optionalInt64("expiryMonth").map(Int.init),
            expiryYear: reader.optionalInt64("expiryYear").map(Int.init), eciPresent: try reader.bool("eciPresent"))
        else { throw reader.fail("last4") }
        let amount = try reader.amount("amount", currencyField: "currency")
        var approved: Amount?
        if reader.optionalInt64("approvedAmount") != nil {
            approved = try reader.amount("approvedAmount", currencyField: "approvedCurrency")
        }
        var sheet: SheetState?
        if let sheetReader = reader.nested("sheet") {
            let deadline = try sheetReader.date("deadline")
            sheet = try sheetReader.optionalValue("answer", as: SheetAnswer.self).map { .answered($0, deadline: deadline) }
                ?? .awaitingAnswer(deadline: deadline)
        }
        self.init(
            id: try reader.string("id"), intentID: try reader.string("intentId"), sequence: Int(try reader.int64("sequence")),
            status: try reader.value("status", as: AttemptStatus.self), source: try reader.value("source", as: AttemptSource.self),
            card: card, amount: amount, approvedAmount: approved, processorID: reader.optionalString("processorId"),
            failure: try reader.nested("failure").map { reader throws(PaymentSnapshotError) in try PaymentFailure(reader) },
            sheet: sheet, createdAt: try reader.date("createdAt"), updatedAt: try reader.date("updatedAt"))
    }
}

extension Refund {
    /// The refund of a stored snapshot (`json`).
    public init(snapshot json: JSONValue) throws(PaymentSnapshotError) {
        let reader = SnapshotReader(json: json, object: "refund")
        self.init(
            id: try reader.string("id"), intentID: try reader.string("intentId"), attemptID: try reader.string("attemptId"),
            amount: try reader.amount("amount", currencyField: "currency"), status: try reader.value("status", as: RefundStatus.self),
            reason: try reader.optionalValue("reason", as: RefundReason.self), processorAccepted: try reader.bool("processorAccepted"),
            processorID: reader.optionalString("processorId"), failureCode: reader.optionalString("failureCode"),
            createdAt: try reader.date("createdAt"), updatedAt: try reader.date("updatedAt"))
    }
}
