import Foundation

/// A processor's webhook, in the subset of Stripe's event shape PayPanel reads
/// (docs/webhooks.md, "Webhooks in"): `{"id","object":"event","type","created","data":{"object":{…}}}`,
/// the data object a `payment_intent` (`metadata.attempt_id` names PayPanel's attempt), a
/// `refund` (`metadata.refund_reference`, as `HTTPPaymentProcessor` sets it, or `refund_id`) or, for `charge.refunded`, a `charge` whose `refunds.data`
/// holds refunds. Anything else well formed is read as `.other`: acknowledged and recorded,
/// never applied.
public struct ProcessorWebhookEvent: Sendable, Equatable {
    /// The processor's event id: the inbox key, so a redelivery is applied once.
    public let id: String
    public let type: String
    public let findings: [Finding]

    /// What the event says about one of PayPanel's calls.
    public enum Finding: Sendable, Equatable {
        /// A payment intent event about attempt `attemptID`.
        case paymentIntent(attemptID: String, status: String, amount: Amount, amountCapturable: Int64, amountReceived: Int64,
                           processorID: String, declineCode: String?, captureBefore: Date?)
        /// A refund event about PayPanel's refund `refundID`.
        case refund(refundID: String, status: String, amount: Amount, processorID: String, failureReason: String?)
    }

    /// An event already read (one finding of a `charge.refunded` applied on its own).
    init(id: String, type: String, findings: [Finding]) {
        self.id = id
        self.type = type
        self.findings = findings
    }

    /// Reads `body`; throws `WebhookStoreError` (code `invalid_processor_event`) naming the field.
    public init(body: [UInt8]) throws {
        let json: JSONValue
        do {
            json = try JSONParser(maximumDepth: 16).parse(body)
        } catch {
            throw Self.invalid("the body is not acceptable JSON: \(error.message)")
        }
        guard let id = json["id"]?.stringValue, (1...255).contains(id.utf8.count), !SensitiveDigits.containsCardNumber(id) else {
            throw Self.invalid("id must be the processor's event id (1 to 255 characters)")
        }
        guard let type = json["type"]?.stringValue, (1...100).contains(type.utf8.count) else { throw Self.invalid("type is missing") }
        guard let object = json["data"]?["object"], case .object = object else { throw Self.invalid("data.object is missing") }
        self.id = id
        self.type = type
        switch (object["object"]?.stringValue, type) {
        case ("payment_intent", _):
            findings = [try Self.paymentIntent(object)]
        case ("refund", _):
            findings = [try Self.refund(object)]
        case ("charge", "charge.refunded"):
            findings = try (object["refunds"]?["data"]?.arrayValue ?? []).prefix(100).map(Self.refund)
        default:
            findings = []
        }
    }

    private static func paymentIntent(_ object: JSONValue) throws -> Finding {
        guard let attemptID = object["metadata"]?["attempt_id"]?.stringValue, PaymentIDs.isWellFormed(attemptID, kind: .attempt) else {
            throw invalid("data.object.metadata.attempt_id must be PayPanel's attempt id (att_…)")
        }
        return .paymentIntent(
            attemptID: attemptID, status: try string(object, "status"), amount: try amount(object),
            amountCapturable: object["amount_capturable"]?.int64Value ?? 0, amountReceived: object["amount_received"]?.int64Value ?? 0,
            processorID: try string(object, "id"), declineCode: object["last_payment_error"]?["decline_code"]?.stringValue
                ?? object["last_payment_error"]?["code"]?.stringValue,
            captureBefore: object["capture_before"]?.int64Value.map { Date(timeIntervalSince1970: TimeInterval($0)) })
    }

    private static func refund(_ object: JSONValue) throws -> Finding {
        // refund_reference is what HTTPPaymentProcessor sets on the refunds it makes; refund_id is accepted too.
        let named = object["metadata"]?["refund_reference"]?.stringValue ?? object["metadata"]?["refund_id"]?.stringValue
        guard let refundID = named, PaymentIDs.isWellFormed(refundID, kind: .refund) else {
            throw invalid("data.object.metadata.refund_reference (or refund_id) must be PayPanel's refund id (re_…)")
        }
        return .refund(
            refundID: refundID, status: try string(object, "status"), amount: try amount(object), processorID: try string(object, "id"),
            failureReason: object["failure_reason"]?.stringValue)
    }

    private static func string(_ object: JSONValue, _ field: String) throws -> String {
        guard let value = object[field]?.stringValue, (1...255).contains(value.utf8.count) else {
            throw invalid("data.object.\(field) must be a string of 1 to 255 characters")
        }
        return value
    }

    private static func amount(_ object: JSONValue) throws -> Amount {
        guard let minor = object["amount"]?.int64Value, minor >= 0, let code = object["currency"]?.stringValue,
              let currency = try? Currency(code: code.uppercased())
        else { throw invalid("data.object.amount (minor units) and data.object.currency (ISO 4217) are required") }
        return Amount(minorUnits: minor, currency: currency)
    }

    static func invalid(_ message: String) -> WebhookStoreError {
        WebhookStoreError(message, code: "invalid_processor_event")
    }
}

/// What PayPanel did with a processor webhook.
public struct ProcessorWebhookResult: Sendable, Equatable {
    public enum Disposition: String, Sendable, CaseIterable {
        /// Fed to the state machine as the answer of the call it is about.
        case applied
        /// Already processed (the inbox knew its id): nothing changed.
        case duplicate
        /// Well signed but about no call PayPanel is waiting on (unknown attempt, a call already
        /// settled, an event type PayPanel does not act on): recorded, nothing changed.
        case ignored
        /// About a call whose own request is still waiting for its answer: left to it (and to
        /// the worker's lookup), not recorded, so a redelivery can still apply.
        case deferred
    }

    public let disposition: Disposition
    public let intentID: String?
    public let reason: String?

    public init(disposition: Disposition, intentID: String?, reason: String?) {
        self.disposition = disposition
        self.intentID = intentID
        self.reason = reason
    }
}
