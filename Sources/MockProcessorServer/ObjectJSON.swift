import Foundation
import PayPanel

/// Stripe's object shapes, for the subset this mock serves: only the fields the subset needs,
/// with Stripe's names, lower-case currencies, amounts in minor units and Unix-second times.
enum ObjectJSON {
    static func unix(_ date: Date) -> JSONValue { .number(Int64(date.timeIntervalSince1970.rounded(.down))) }

    static func metadata(_ pairs: [(String, String)]) -> JSONValue {
        .orderedObject(pairs.map { ($0.0, .string($0.1)) })
    }

    static func intent(_ intent: StoredIntent, baseURL: String) -> JSONValue {
        var nextAction: JSONValue = .null
        if intent.status == "requires_action" {
            nextAction = .orderedObject([
                ("type", "redirect_to_url"),
                ("redirect_to_url", .orderedObject([
                    ("url", .string("\(baseURL)/_mock/3ds/\(intent.id)")),
                    ("return_url", .null),
                ])),
            ])
        }
        return .orderedObject([
            ("id", .string(intent.id)),
            ("object", "payment_intent"),
            ("amount", .number(intent.amount)),
            ("amount_capturable", .number(intent.amountCapturable)),
            ("amount_received", .number(intent.amountReceived)),
            ("canceled_at", intent.canceledAt.map(unix) ?? .null),
            ("cancellation_reason", .optional(intent.cancellationReason)),
            ("capture_method", .string(intent.captureMethod)),
            ("client_secret", .string(intent.clientSecret)),
            ("confirmation_method", "automatic"),
            ("created", unix(intent.created)),
            ("currency", .string(intent.currency.code.lowercased())),
            ("customer", .null),
            ("description", .optional(intent.description)),
            ("last_payment_error", intent.lastPaymentError ?? .null),
            ("latest_charge", .optional(intent.latestCharge)),
            ("livemode", false),
            ("metadata", metadata(intent.metadata)),
            ("next_action", nextAction),
            ("payment_method", .optional(intent.paymentMethod?.id ?? intent.paymentMethodID)),
            ("payment_method_types", ["card"]),
            ("status", .string(intent.status)),
        ])
    }

    static func paymentMethod(_ card: PaymentMethodCard) -> JSONValue {
        .orderedObject([
            ("id", .string(card.id)),
            ("object", "payment_method"),
            ("billing_details", .orderedObject([("name", .optional(card.method.holderName))])),
            ("card", .orderedObject([
                ("brand", .string(card.brand)),
                ("exp_month", card.expMonth.map { .number($0) } ?? .null),
                ("exp_year", card.expYear.map { .number($0) } ?? .null),
                ("last4", .string(card.method.cardNumber.last4)),
                ("wallet", isNetworkToken(card.method) ? .orderedObject([("type", "apple_pay")]) : .null),
            ])),
            ("type", "card"),
        ])
    }

    static func isNetworkToken(_ method: PaymentMethodData) -> Bool {
        if case .networkToken = method { return true }
        return false
    }

    static func refund(_ refund: StoredRefund) -> JSONValue {
        .orderedObject([
            ("id", .string(refund.id)),
            ("object", "refund"),
            ("amount", .number(refund.amount)),
            ("charge", .optional(refund.charge)),
            ("created", unix(refund.created)),
            ("currency", .string(refund.currency.code.lowercased())),
            ("failure_reason", .optional(refund.failureReason)),
            ("metadata", metadata(refund.metadata)),
            ("payment_intent", .string(refund.paymentIntent)),
            ("reason", .optional(refund.reason)),
            ("status", .string(refund.status)),
        ])
    }

    static func list(_ data: [JSONValue], hasMore: Bool, url: String) -> JSONValue {
        .orderedObject([("object", "list"), ("data", .array(data)), ("has_more", .bool(hasMore)), ("url", .string(url))])
    }

    /// Stripe's `card_error` for a decline: `code` (`card_declined`, or `expired_card`,
    /// `processing_error`), `decline_code`, and the payer-safe message.
    static func cardError(_ code: DeclineCode, card: PaymentMethodCard?) -> (code: String, declineCode: String?, message: String, json: JSONValue) {
        let stripeCode: String
        var declineCode: String? = code.rawValue
        switch code {
        case .expiredCard: stripeCode = "expired_card"
        case .processingError: stripeCode = "processing_error"
        case .authenticationFailed:
            stripeCode = "payment_intent_authentication_failure"
            declineCode = nil
        default: stripeCode = "card_declined"
        }
        let message = code.payerMessage
        var members: [(String, JSONValue)] = [("type", "card_error"), ("code", .string(stripeCode))]
        if let declineCode { members.append(("decline_code", .string(declineCode))) }
        members.append(("message", .string(message)))
        if let card { members.append(("payment_method", paymentMethod(card))) }
        return (stripeCode, declineCode, message, .orderedObject(members))
    }
}
