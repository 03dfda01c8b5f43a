import Foundation
import MockProcessor
import PayPanel

/// `POST /v1/payment_intents/{id}` and `POST /v1/refunds/{id}`: Stripe's updates, with its rules
/// on what may change in which status.
extension ProcessorService {
    /// What `POST /v1/payment_intents/{id}` takes.
    static let updateIntentShape = ParameterShape.members([
        "amount": .value, "currency": .value, "capture_method": .value, "description": .value, "metadata": .hash,
        "receipt_email": .value, "payment_method": .value, "payment_method_data": PaymentMethodParameters.shape,
        "setup_future_usage": .value, "customer": .value, "expand": .list,
    ])

    /// The statuses in which what decides the payment (amount, currency, capture method, payment
    /// method) may still change: before the intent is confirmed. Stripe also allows
    /// `requires_action`; the mock's challenge belongs to the authorization already made, so
    /// there it is refused (docs/mock-processor.md, "What differs on purpose").
    static let unconfirmedStatuses = ["requires_payment_method", "requires_confirmation"]

    /// POST /v1/payment_intents/{id}. `description`, `metadata` and `receipt_email` change in
    /// every status; the rest only before confirmation. A new payment method makes the intent
    /// `requires_confirmation`. Nothing changes unless every parameter is acceptable.
    func updateIntent(_ tag: String, id: String, _ parameters: Parameters, idempotencyKey: String?) -> Reply {
        do {
            guard var intent = account(tag).intents[id] else { throw StripeError.resourceMissing("payment_intent", id) }
            for name in ["amount", "currency", "capture_method", "payment_method", "payment_method_data", "setup_future_usage", "customer"]
            where parameters.value([name]) != nil && !Self.unconfirmedStatuses.contains(intent.status) {
                throw StripeError.unexpectedState(
                    "This PaymentIntent's \(name) could not be updated because it has a status of \(intent.status). You may only update the \(name) of a PaymentIntent with one of the following statuses: \(Self.unconfirmedStatuses.joined(separator: ", ")).",
                    param: name)
            }
            if parameters.value(["currency"]) != nil { intent.currency = try Self.currency(parameters) }
            if let amount = try parameters.integer("amount", in: 0...Int64.max) { intent.amount = amount }
            if parameters.value(["amount"]) != nil || parameters.value(["currency"]) != nil {
                try StripeAmount.check(intent.amount, "amount", currency: intent.currency)
            }
            if let captureMethod = try parameters.string("capture_method") {
                guard Self.captureMethods.contains(captureMethod) else {
                    throw StripeError.invalidRequest("capture_method must be automatic, automatic_async or manual.", param: "capture_method")
                }
                intent.captureMethod = captureMethod
            }
            if let description = try parameters.string("description") {
                guard description.count <= 1000 else { throw StripeError.invalidRequest("description is longer than 1000 characters.", param: "description") }
                // An empty value unsets it, as at Stripe.
                intent.description = description.isEmpty ? nil : description
            }
            if let email = try parameters.string("receipt_email") {
                intent.receiptEmail = try Self.receiptEmail(email)
            }
            intent.metadata = try Self.merged(intent.metadata, update: parameters)
            if let setupFutureUsage = try Self.setupFutureUsage(parameters) { intent.setupFutureUsage = setupFutureUsage }
            if let customer = try parameters.string("customer") {
                if !customer.isEmpty { try requireCustomer(tag, customer, param: "customer") }
                intent.customer = customer.isEmpty ? nil : customer
            }
            if let card = try paymentMethod(tag, parameters, idempotencyKey: idempotencyKey) {
                intent.paymentMethod = card
                intent.status = "requires_confirmation"
            }
            let updated = intent
            update(tag) { $0.intents[id] = updated }
            return .ok(ObjectJSON.intent(updated, baseURL: baseURL))
        } catch let error as StripeError {
            return .error(error)
        } catch {
            return .error(.apiError("Unexpected failure."))
        }
    }

    /// POST /v1/refunds/{id}: only `metadata`, as at Stripe, in every status.
    func updateRefund(_ tag: String, id: String, _ parameters: Parameters) -> Reply {
        do throws(StripeError) {
            guard var refund = account(tag).refunds[id] else { throw StripeError.resourceMissing("refund", id) }
            refund.metadata = try Self.merged(refund.metadata, update: parameters)
            let updated = refund
            update(tag) { $0.refunds[id] = updated }
            return .ok(ObjectJSON.refund(updated))
        } catch {
            return .error(error)
        }
    }

    static let captureMethods = ["automatic", "automatic_async", "manual"]

    /// `receipt_email`: an address (one `@`, something each side, no spaces), at most 800
    /// characters as at Stripe; empty unsets it.
    static func receiptEmail(_ text: String, param: String = "receipt_email") throws(StripeError) -> String? {
        if text.isEmpty { return nil }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard text.count <= 800, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
              !text.contains(where: { $0.isWhitespace || $0.isNewline })
        else {
            throw StripeError.invalidRequest("Invalid email address: \(param) must look like name@example.com.", param: param, code: "email_invalid")
        }
        return text
    }

    /// Stripe's metadata update: `metadata[k]=v` sets a key (in place if present), `metadata[k]=`
    /// unsets it, `metadata=` unsets them all; keys not named keep their values. At most 50 keys
    /// after the update.
    static func merged(_ current: [(String, String)], update parameters: Parameters) throws(StripeError) -> [(String, String)] {
        guard let changes = try parameters.metadata("metadata") else { return current }
        if case .string("")? = parameters.value(["metadata"]) { return [] }
        var result = current
        for (key, value) in changes {
            if let index = result.firstIndex(where: { $0.0 == key }) {
                if value.isEmpty { result.remove(at: index) } else { result[index].1 = value }
            } else if !value.isEmpty {
                result.append((key, value))
            }
        }
        guard result.count <= 50 else { throw StripeError.invalidRequest("metadata can have at most 50 keys.", param: "metadata") }
        return result
    }
}
