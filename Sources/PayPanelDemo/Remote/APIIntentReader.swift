import Foundation
import PayPanel

/// Reads the API's `payment_intent` object (`GET /v1/payment_intents/{id}`, snake_case, epoch
/// seconds) back into the library's values, so the device's screens show a remote intent
/// exactly as they show a local one. Fields the API does not show come back as defaults: the
/// version (0), the call in flight, the sheet's state.
enum APIIntentReader {
    struct Unreadable: PayPanelError {
        let field: String
        var code: String { "server_answer_unreadable" }
        var message: String { "the server's payment_intent has no usable \(field): is the URL a PayPanel server of the same version?" }
    }

    static func details(_ json: JSONValue) throws(Unreadable) -> PaymentDetails {
        let id = try string(json, "id")
        guard let currency = try? Currency(code: try string(json, "currency")) else { throw Unreadable(field: "currency") }
        let amount = Amount(minorUnits: try integer(json, "amount"), currency: currency)
        let attempts = try (json["attempts"]?.arrayValue ?? []).enumerated().map { (index, value) throws(Unreadable) in
            try attempt(value, intentID: id, sequence: index + 1, currency: currency)
        }
        guard let status = PaymentStatus(rawValue: try string(json, "status")) else { throw Unreadable(field: "status") }
        let captured = json["amount_captured"]?.int64Value ?? 0
        let intent = PaymentIntent(
            id: id, amount: amount,
            captureMethod: CaptureMethod(rawValue: json["capture_method"]?.stringValue ?? "") ?? .automatic,
            orderReference: json["order_reference"]?.stringValue, status: status,
            amountAuthorized: (json["amount_capturable"]?.int64Value ?? 0) + captured, amountCaptured: captured,
            amountRefunded: json["amount_refunded"]?.int64Value ?? 0, captureBefore: date(json["capture_before"]),
            attemptCount: Int(json["attempt_count"]?.int64Value ?? Int64(attempts.count)), currentAttemptID: attempts.last?.id,
            lastError: failure(json["last_error"], attemptID: attempts.last?.id),
            cancellationReason: json["cancellation_reason"]?.stringValue.flatMap(CancellationReason.init(rawValue:)),
            version: 0, createdAt: date(json["created"]) ?? Date(timeIntervalSince1970: 0),
            updatedAt: date(json["updated"]) ?? Date(timeIntervalSince1970: 0),
            metadata: json["metadata"].flatMap(Metadata.init(json:)) ?? .empty)
        return PaymentDetails(intent: intent, attempts: attempts, refunds: [])
    }

    private static func attempt(_ json: JSONValue, intentID: String, sequence: Int, currency: Currency) throws(Unreadable) -> Attempt {
        let id = try string(json, "id")
        let card = json["card"]
        let summary = CardSummary(
            network: card?["network"]?.stringValue.flatMap(PaymentNetwork.init(rawValue:)), last4: card?["last4"]?.stringValue ?? "0000",
            expiryMonth: card?["exp_month"]?.int64Value.map(Int.init), expiryYear: card?["exp_year"]?.int64Value.map(Int.init))
        guard let summary, let status = AttemptStatus(rawValue: try string(json, "status")) else { throw Unreadable(field: "attempts") }
        let created = date(json["created"]) ?? Date(timeIntervalSince1970: 0)
        return Attempt(
            id: id, intentID: intentID, sequence: sequence, status: status,
            source: AttemptSource(rawValue: json["source"]?.stringValue ?? "") ?? .card, card: summary,
            amount: Amount(minorUnits: json["amount"]?.int64Value ?? 0, currency: currency),
            failure: failure(json["failure"], attemptID: id), createdAt: created, updatedAt: created)
    }

    /// `{type, code, decline_code?, message}`; a code this program does not know reads as an
    /// unexpected processor answer (its message is kept).
    private static func failure(_ json: JSONValue?, attemptID: String?) -> PaymentFailure? {
        guard let json, let code = json["code"]?.stringValue else { return nil }
        return PaymentFailure(
            code: FailureCode(rawValue: code) ?? .unexpectedProcessorAnswer, declineCode: json["decline_code"]?.stringValue.map(DeclineCode.init),
            message: json["message"]?.stringValue ?? code, attemptID: attemptID)
    }

    private static func string(_ json: JSONValue, _ field: String) throws(Unreadable) -> String {
        guard let value = json[field]?.stringValue else { throw Unreadable(field: field) }
        return value
    }

    private static func integer(_ json: JSONValue, _ field: String) throws(Unreadable) -> Int64 {
        guard let value = json[field]?.int64Value else { throw Unreadable(field: field) }
        return value
    }

    private static func date(_ value: JSONValue?) -> Date? {
        value?.int64Value.map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }
}
