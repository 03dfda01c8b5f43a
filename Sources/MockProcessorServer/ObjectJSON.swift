import Foundation
import MockProcessor
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
            ("receipt_email", .optional(intent.receiptEmail)),
            ("setup_future_usage", .optional(intent.setupFutureUsage)),
            ("status", .string(intent.status)),
        ])
    }

    static func paymentMethod(_ card: PaymentMethodCard) -> JSONValue {
        let testCard = StripeTestCards.card(number: card.method.cardNumber.digits)
        return .orderedObject([
            ("id", .string(card.id)),
            ("object", "payment_method"),
            ("billing_details", .orderedObject([("name", .optional(card.method.holderName))])),
            ("card", .orderedObject([
                ("brand", .string(card.brand)),
                ("country", .optional(testCard?.country)),
                ("exp_month", card.expMonth.map { .number($0) } ?? .null),
                ("exp_year", card.expYear.map { .number($0) } ?? .null),
                // Stripe's test cards have a known funding; any other number's is not known here.
                ("funding", .string(testCard?.funding ?? "unknown")),
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
    /// `incorrect_cvc`, `processing_error`, `authentication_required`, …), `decline_code`,
    /// `message` and `param` as Stripe's test mode gives them (`StripeDecline`, the test card
    /// table's); for the mock's own refusals (a failed challenge, cryptograms) the payer message.
    static func cardError(_ code: DeclineCode, card: PaymentMethodCard?) -> (code: String, declineCode: String?, message: String, param: String?, json: JSONValue) {
        let stripeCode: String
        var declineCode: String? = code.rawValue
        var message = code.payerMessage
        var param: String?
        if let decline = StripeDecline.for(code) {
            stripeCode = decline.code
            message = decline.message
            param = decline.param
        } else if code == .authenticationFailed {
            stripeCode = "payment_intent_authentication_failure"
            declineCode = nil
        } else {
            stripeCode = "card_declined"
        }
        var members: [(String, JSONValue)] = [("type", "card_error"), ("code", .string(stripeCode))]
        if let declineCode { members.append(("decline_code", .string(declineCode))) }
        members.append(("message", .string(message)))
        if let param { members.append(("param", .string(param))) }
        if let card { members.append(("payment_method", paymentMethod(card))) }
        return (stripeCode, declineCode, message, param, .orderedObject(members))
    }
}
