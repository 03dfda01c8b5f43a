import Foundation
import MockProcessor
import PayPanel

/// Stripe's object shapes, for the subset this mock serves: only the fields the subset needs,
/// with Stripe's names, lower-case currencies, amounts in minor units and Unix-second times.
enum ObjectJSON {
    static func unix(_ date: Date) -> JSONValue { .number(date.unixSeconds) }

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
            ("amount_details", .orderedObject([("tip", .orderedObject([]))])),
            ("amount_received", .number(intent.amountReceived)),
            ("application", .null),
            ("application_fee_amount", .null),
            ("automatic_payment_methods", intent.automaticPaymentMethods.map {
                .orderedObject([("allow_redirects", .string($0)), ("enabled", true)])
            } ?? .null),
            ("canceled_at", intent.canceledAt.map(unix) ?? .null),
            ("cancellation_reason", .optional(intent.cancellationReason)),
            ("capture_method", .string(intent.captureMethod)),
            ("client_secret", .string(intent.clientSecret)),
            ("confirmation_method", "automatic"),
            ("created", unix(intent.created)),
            ("currency", .string(intent.currency.code.lowercased())),
            ("customer", .optional(intent.customer)),
            ("customer_account", .null),
            ("description", .optional(intent.description)),
            ("excluded_payment_method_types", .null),
            ("last_payment_error", intent.lastPaymentError ?? .null),
            ("latest_charge", .optional(intent.latestCharge)),
            ("livemode", false),
            ("managed_payments", .null),
            ("metadata", metadata(intent.metadata)),
            ("next_action", nextAction),
            ("on_behalf_of", .null),
            ("payment_method", .optional(intent.paymentMethod?.id ?? intent.paymentMethodID)),
            ("payment_method_configuration_details", .null),
            ("payment_method_options", .orderedObject([("card", .orderedObject([
                ("installments", .null), ("mandate_options", .null), ("network", .null), ("request_three_d_secure", "automatic"),
            ]))])),
            ("payment_method_types", ["card"]),
            ("processing", .null),
            ("receipt_email", .optional(intent.receiptEmail)),
            ("review", .null),
            ("setup_future_usage", .optional(intent.setupFutureUsage)),
            ("shipping", .null),
            ("source", .null),
            ("statement_descriptor", .null),
            ("statement_descriptor_suffix", .null),
            ("status", .string(intent.status)),
            ("transfer_data", .null),
            ("transfer_group", .null),
        ])
    }

    /// Stripe's `billing_details`: only the name is known here.
    static func billingDetails(name: String?) -> JSONValue {
        .orderedObject([
            ("address", .orderedObject(["city", "country", "line1", "line2", "postal_code", "state"].map { ($0, JSONValue.null) })),
            ("email", .null), ("name", .optional(name)), ("phone", .null), ("tax_id", .null),
        ])
    }

    static func wallet(_ type: String?) -> JSONValue {
        type.map { .orderedObject([("dynamic_last4", .null), ("type", .string($0))]) } ?? .null
    }

    static func paymentMethod(_ method: StoredPaymentMethod) -> JSONValue {
        .orderedObject([
            ("id", .string(method.id)),
            ("object", "payment_method"),
            ("allow_redisplay", "unspecified"),
            ("billing_details", billingDetails(name: method.holderName)),
            ("card", .orderedObject([
                ("brand", .string(method.brand)),
                ("checks", .orderedObject([("address_line1_check", .null), ("address_postal_code_check", .null), ("cvc_check", .null)])),
                ("country", .optional(method.country)),
                ("display_brand", .string(method.brand)),
                ("exp_month", method.expMonth.map { .number($0) } ?? .null),
                ("exp_year", method.expYear.map { .number($0) } ?? .null),
                ("fingerprint", .string(method.fingerprint)),
                // Stripe's test cards have a known funding; any other number's is not known here.
                ("funding", .string(method.funding)),
                ("generated_from", .null),
                ("last4", .string(method.last4)),
                ("networks", .orderedObject([("available", .array([.string(method.brand)])), ("preferred", .null)])),
                ("regulated_status", .null),
                ("three_d_secure_usage", .orderedObject([("supported", true)])),
                ("wallet", wallet(method.wallet)),
            ])),
            ("created", unix(method.created)),
            ("customer", .optional(method.customer)),
            ("customer_account", .null),
            ("livemode", false),
            ("metadata", metadata(method.metadata)),
            ("type", "card"),
        ])
    }

    /// A charge; what moved since it was made (captured, refunded) is its intent's.
    static func charge(_ charge: StoredCharge, intent: StoredIntent?, method: StoredPaymentMethod?, refunds: [StoredRefund]) -> JSONValue {
        let succeeded = charge.status == "succeeded"
        let current = succeeded && intent?.latestCharge == charge.id ? intent : nil
        let captured = (current?.amountReceived ?? 0) > 0
        let amountCaptured = current?.amountReceived ?? 0
        // An uncaptured authorization that was canceled is refunded whole, as at Stripe.
        let releasedUncaptured = current.map { $0.status == "canceled" && $0.amountReceived == 0 } ?? false
        let amountRefunded = releasedUncaptured ? charge.amount : (current?.refunded ?? 0)
        let refunded = releasedUncaptured || (captured && amountRefunded >= amountCaptured)
        let outcome: JSONValue = .orderedObject([
            ("advice_code", .null), ("network_advice_code", .null), ("network_decline_code", .null),
            ("network_status", succeeded ? "approved_by_network" : (charge.declineCode == "fraudulent" ? "not_sent_to_network" : "declined_by_network")),
            ("reason", .optional(charge.declineCode)),
            ("risk_level", "normal"),
            ("seller_message", .string(succeeded ? "Payment complete." : "The bank did not return any further details with this decline.")),
            ("type", .string(succeeded ? "authorized" : (charge.declineCode == "fraudulent" ? "blocked" : "issuer_declined"))),
        ])
        let card: JSONValue = .orderedObject([
            ("amount_authorized", succeeded ? .number(charge.amount) : .null),
            ("authorization_code", .null),
            ("brand", .optional(method?.brand)),
            ("checks", .orderedObject([("address_line1_check", .null), ("address_postal_code_check", .null), ("cvc_check", .null)])),
            ("country", .optional(method?.country)),
            ("exp_month", method?.expMonth.map { .number($0) } ?? .null),
            ("exp_year", method?.expYear.map { .number($0) } ?? .null),
            ("extended_authorization", .orderedObject([("status", "disabled")])),
            ("fingerprint", .optional(method?.fingerprint)),
            ("funding", .optional(method?.funding)),
            ("incremental_authorization", .orderedObject([("status", "unavailable")])),
            ("installments", .null),
            ("last4", .optional(method?.last4)),
            ("mandate", .null),
            ("multicapture", .orderedObject([("status", "unavailable")])),
            ("network", .optional(method?.brand)),
            ("network_token", .orderedObject([("used", .bool(method?.wallet != nil))])),
            ("network_transaction_id", .null),
            ("overcapture", .orderedObject([("maximum_amount_capturable", .number(charge.amount)), ("status", "unavailable")])),
            ("regulated_status", .null),
            ("three_d_secure", .null),
            ("transaction_link_id", .null),
            ("wallet", wallet(method?.wallet)),
        ])
        return .orderedObject([
            ("id", .string(charge.id)),
            ("object", "charge"),
            ("amount", .number(charge.amount)),
            ("amount_captured", .number(amountCaptured)),
            ("amount_refunded", .number(amountRefunded)),
            ("application", .null),
            ("application_fee", .null),
            ("application_fee_amount", .null),
            ("balance_transaction", .null),
            ("billing_details", billingDetails(name: method?.holderName)),
            ("calculated_statement_descriptor", .null),
            ("captured", .bool(captured)),
            ("created", unix(charge.created)),
            ("currency", .string(charge.currency.code.lowercased())),
            ("customer", .optional(charge.customer)),
            ("description", .optional(charge.description)),
            ("disputed", false),
            ("failure_balance_transaction", .null),
            ("failure_code", .optional(charge.failureCode)),
            ("failure_message", .optional(charge.failureMessage)),
            ("fraud_details", .orderedObject([])),
            ("livemode", false),
            ("metadata", metadata(intent?.metadata ?? [])),
            ("on_behalf_of", .null),
            ("outcome", outcome),
            ("paid", .bool(succeeded)),
            ("payment_intent", .string(charge.paymentIntent)),
            ("payment_method", .optional(charge.paymentMethod)),
            ("payment_method_details", .orderedObject([("card", card), ("type", "card")])),
            ("receipt_email", .optional(charge.receiptEmail)),
            ("receipt_number", .null),
            ("receipt_url", .null),
            ("refunded", .bool(refunded)),
            ("refunds", list(refunds.map(refund), hasMore: false, url: "/v1/charges/\(charge.id)/refunds")),
            ("review", .null),
            ("shipping", .null),
            ("source", .null),
            ("source_transfer", .null),
            ("statement_descriptor", .null),
            ("statement_descriptor_suffix", .null),
            ("status", .string(charge.status)),
            ("transfer_data", .null),
            ("transfer_group", .null),
        ])
    }

    static func refund(_ refund: StoredRefund) -> JSONValue {
        // Stripe's schema has `failure_reason` as a string, never null: only a failed refund has one.
        let failure: [(String, JSONValue)] = refund.failureReason.map { [("failure_reason", .string($0))] } ?? []
        return .orderedObject([
            ("id", .string(refund.id)),
            ("object", "refund"),
            ("amount", .number(refund.amount)),
            ("balance_transaction", .null),
            ("charge", .optional(refund.charge)),
            ("created", unix(refund.created)),
            ("currency", .string(refund.currency.code.lowercased())),
            ("customer", .null),
            ("customer_account", .null),
            ("destination_details", .orderedObject([("card", .orderedObject([("type", "refund")])), ("type", "card")])),
        ] + failure + [
            ("metadata", metadata(refund.metadata)),
            ("payment_intent", .string(refund.paymentIntent)),
            ("payment_method", .null),
            ("reason", .optional(refund.reason)),
            ("receipt_number", .null),
            ("source_transfer_reversal", .null),
            ("status", .string(refund.status)),
            ("transfer_reversal", .null),
        ])
    }

    static func customer(_ customer: StoredCustomer) -> JSONValue {
        if customer.deleted {
            return .orderedObject([("id", .string(customer.id)), ("object", "customer"), ("deleted", true)])
        }
        return .orderedObject([
            ("id", .string(customer.id)),
            ("object", "customer"),
            ("address", .null),
            ("balance", 0),
            ("created", unix(customer.created)),
            ("currency", .null),
            ("default_source", .null),
            ("delinquent", false),
            ("description", .optional(customer.description)),
            ("discount", .null),
            ("email", .optional(customer.email)),
            ("invoice_prefix", .string(customer.invoicePrefix)),
            ("invoice_settings", .orderedObject([
                ("custom_fields", .null), ("default_payment_method", .optional(customer.defaultPaymentMethod)), ("footer", .null),
                ("rendering_options", .null),
            ])),
            ("livemode", false),
            ("metadata", metadata(customer.metadata)),
            ("name", .optional(customer.name)),
            ("next_invoice_sequence", 1),
            ("phone", .optional(customer.phone)),
            ("preferred_locales", .array([])),
            ("shipping", .null),
            ("tax_exempt", "none"),
            ("test_clock", .null),
        ])
    }

    static func list(_ data: [JSONValue], hasMore: Bool, url: String) -> JSONValue {
        .orderedObject([("object", "list"), ("data", .array(data)), ("has_more", .bool(hasMore)), ("url", .string(url))])
    }

    /// Stripe's `card_error` for a decline: `code` (`card_declined`, or `expired_card`,
    /// `incorrect_cvc`, `processing_error`, `authentication_required`, …), `decline_code`,
    /// `message` and `param` as Stripe's test mode gives them (`StripeDecline`, the test card
    /// table's); for the mock's own refusals (a failed challenge, cryptograms) the payer message.
    static func cardError(_ code: DeclineCode, card: StoredPaymentMethod?) -> (code: String, declineCode: String?, message: String, param: String?, json: JSONValue) {
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
