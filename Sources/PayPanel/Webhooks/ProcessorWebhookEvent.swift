import Foundation

/// A processor's webhook, in the subset of Stripe's event shape PayPanel reads
/// (docs/webhooks.md, "Webhooks in"): `{"id","object":"event","type","created","data":{"object":{…}}}`,
/// the data object a `payment_intent` (`metadata.attempt_id` names PayPanel's attempt), a
/// `refund` (`metadata.refund_reference`, as `HTTPPaymentProcessor` sets it, or `refund_id`) or, for `charge.refunded`, a `charge` whose `refunds.data`
/// holds refunds. Anything else well formed has no findings: acknowledged and recorded, never
/// applied. That includes events about objects PayPanel did not create — a payment intent or a
/// refund without PayPanel's id in its metadata, made by another integration on the same
/// processor account: they are the processor's normal traffic, not malformed events, and
/// refusing them would make the processor deliver them again for days.
public struct ProcessorWebhookEvent: Sendable, Equatable {
    /// The processor's event id: the inbox key, so a redelivery is applied once.
    public let id: String
    public let type: String
    public let findings: [Finding]
    /// Why the event has no findings although it is about a payment intent or refund: it is
    /// about one PayPanel did not create. Nil otherwise.
    public let foreignObject: String?

    /// What the event says about one of PayPanel's calls.
    public enum Finding: Sendable, Equatable {
        /// A payment intent event about attempt `attemptID`.
        case paymentIntent(attemptID: String, status: String, amount: Amount, amountCapturable: Int64, amountReceived: Int64,
                           processorID: String, declineCode: String?, captureBefore: Date?)
        /// A refund event about PayPanel's refund `refundID`.
        case refund(refundID: String, status: String, amount: Amount, processorID: String, failureReason: String?)
    }

    /// An event already read (one finding of a `charge.refunded` applied on its own).
    init(id: String, type: String, findings: [Finding], foreignObject: String? = nil) {
        self.id = id
        self.type = type
        self.findings = findings
        self.foreignObject = foreignObject
    }

    /// Reads `body`; throws `WebhookStoreError` (code `invalid_processor_event`) naming the field.
    public init(body: [UInt8]) throws {
        let json: JSONValue
        do {
            json = try JSONParser(maximumDepth: 16).parse(body)
        } catch {
            throw Self.invalid("the body is not acceptable JSON: \(error.message)")
        }
        // The event id goes into the inbox as it is: one that holds what looks like a card
        // number is no processor's id.
        guard let id = json["id"]?.stringValue, (1...255).contains(id.utf8.count), !SensitiveDigits.containsCardNumber(id) else {
            throw Self.invalid("id must be the processor's event id (1 to 255 characters)")
        }
        guard let type = json["type"]?.stringValue, (1...100).contains(type.utf8.count) else { throw Self.invalid("type is missing") }
        guard let object = json["data"]?["object"], case .object = object else { throw Self.invalid("data.object is missing") }
        self.id = id
        self.type = type
        var findings: [Finding] = []
        var foreign: String?
        switch (object["object"]?.stringValue, type) {
        case ("payment_intent", _):
            if Self.attemptID(object) != nil {
                findings = [try Self.paymentIntent(object)]
            } else {
                foreign = "the payment intent is not one of PayPanel's (its metadata.attempt_id names no PayPanel attempt)"
            }
        case ("refund", _):
            if Self.refundID(object) != nil {
                findings = [try Self.refund(object)]
            } else {
                foreign = "the refund is not one of PayPanel's (its metadata.refund_reference names no PayPanel refund)"
            }
        case ("charge", "charge.refunded"):
            let refunds = (object["refunds"]?["data"]?.arrayValue ?? []).prefix(100)
            findings = try refunds.filter { Self.refundID($0) != nil }.map(Self.refund)
            if findings.isEmpty && !refunds.isEmpty {
                foreign = "none of the charge's refunds is one of PayPanel's (no metadata.refund_reference names a PayPanel refund)"
            }
        default:
            break
        }
        self.findings = findings
        self.foreignObject = foreign
    }

    /// PayPanel's attempt id in a payment intent's metadata, when it holds one: what makes the
    /// intent PayPanel's (`HTTPPaymentProcessor` sets it on every intent it creates).
    private static func attemptID(_ object: JSONValue) -> String? {
        guard let attemptID = object["metadata"]?["attempt_id"]?.stringValue, PaymentIDs.isWellFormed(attemptID, kind: .attempt) else {
            return nil
        }
        return attemptID
    }

    /// PayPanel's refund id in a refund's metadata (`refund_reference`, as `HTTPPaymentProcessor`
    /// sets it, or `refund_id`), when it holds one.
    private static func refundID(_ object: JSONValue) -> String? {
        let named = object["metadata"]?["refund_reference"]?.stringValue ?? object["metadata"]?["refund_id"]?.stringValue
        guard let refundID = named, PaymentIDs.isWellFormed(refundID, kind: .refund) else { return nil }
        return refundID
    }

    /// One of PayPanel's payment intents: every field it needs must be there (a malformed event).
    private static func paymentIntent(_ object: JSONValue) throws -> Finding {
        guard let attemptID = attemptID(object) else {
            throw invalid("data.object.metadata.attempt_id must be PayPanel's attempt id (att_…)")
        }
        return .paymentIntent(
            attemptID: attemptID, status: try string(object, "status"), amount: try amount(object),
            amountCapturable: object["amount_capturable"]?.int64Value ?? 0, amountReceived: object["amount_received"]?.int64Value ?? 0,
            processorID: try string(object, "id"), declineCode: object["last_payment_error"]?["decline_code"]?.stringValue
                ?? object["last_payment_error"]?["code"]?.stringValue,
            captureBefore: object["capture_before"]?.int64Value.map { Date(timeIntervalSince1970: TimeInterval($0)) })
    }

    /// One of PayPanel's refunds.
    private static func refund(_ object: JSONValue) throws -> Finding {
        guard let refundID = refundID(object) else {
            throw invalid("data.object.metadata.refund_reference (or refund_id) must be PayPanel's refund id (re_…)")
        }
        return .refund(
            refundID: refundID, status: try string(object, "status"), amount: try amount(object), processorID: try string(object, "id"),
            failureReason: object["failure_reason"]?.stringValue)
    }

    /// A processor text PayPanel keeps (its id, a status): redacted where it is stored
    /// (`PaymentStateMachine`), like every processor text, so it is only bounded here.
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
