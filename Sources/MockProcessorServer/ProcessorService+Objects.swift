import Foundation
import MockProcessor
import PayPanel

/// Charges, PaymentMethods and Customers as objects of their own: made when Stripe makes them
/// (a charge per decided authorization, a payment method for each card a request brings),
/// retrieved and listed by id, and linked (a payment method attached to a customer, an intent
/// and its charges to their customer).
extension ProcessorService {
    // MARK: - Payment methods

    /// The card a request pays with, as a payment method of the account: `payment_method` naming
    /// one made before (`pm_…`), a Stripe test id (`pm_card_visa`: a new payment method, as at
    /// Stripe), or `payment_method_data`. Nil when the request names none.
    func paymentMethod(_ tag: String, _ parameters: Parameters, idempotencyKey: String?) throws(StripeError) -> PaymentMethodCard? {
        if let id = try parameters.string("payment_method"), account(tag).paymentMethods[id] != nil {
            guard let card = account(tag).cards[id] else {
                throw .invalidRequest(
                    "The PaymentMethod \(id) was made before processor serve restarted, and card numbers are never written to disk: make it again (POST /v1/payment_methods, or pass payment_method=pm_card_…).",
                    param: "payment_method")
            }
            return card
        }
        guard let card = try PaymentMethodParameters.read(parameters, tag: tag, idempotencyKey: idempotencyKey) else { return nil }
        register(tag, card)
        return card
    }

    /// Keeps `card` as a payment method of the account (its public face written, its number in
    /// memory only).
    @discardableResult
    func register(_ tag: String, _ card: PaymentMethodCard, metadata: [(String, String)] = []) -> StoredPaymentMethod {
        let stored = account(tag).paymentMethods[card.id] ?? StoredPaymentMethod(card: card, account: tag, created: now(tag), metadata: metadata)
        update(tag) { account in
            if account.paymentMethods[card.id] == nil { account.paymentMethods[card.id] = stored }
            account.cards[card.id] = card
        }
        return stored
    }

    /// POST /v1/payment_methods — `type=card` with `card[number|exp_month|exp_year|cvc]`, or
    /// `card[token]=tok_visa` (Stripe's test tokens: `tok_<name>` is the card of `pm_card_<name>`),
    /// `billing_details[name]`, `metadata`.
    func createPaymentMethod(_ tag: String, _ parameters: Parameters, idempotencyKey: String?) -> Reply {
        do throws(StripeError) {
            try checkRoom(tag)
            guard let type = try parameters.string("type") else { throw StripeError.missing("type") }
            guard type == "card" else { throw StripeError.invalidRequest("type must be card: this mock takes cards only.", param: "type") }
            var data: [(key: String, value: FormValue)] = [("type", .string("card"))]
            if let token = try parameters.string("card", "token") {
                guard parameters.value(["card", "number"]) == nil else {
                    throw .invalidRequest("Give card[token] or card[number], not both.", param: "card[token]")
                }
                guard token.hasPrefix("tok_"), let number = TestPaymentMethods.number(for: "pm_card_" + token.dropFirst(4)) else {
                    throw .resourceMissing("token", token, param: "card[token]")
                }
                data.append(("card", .object([("number", .string(number)), ("exp_month", .string("12")), ("exp_year", .string("2034"))])))
            } else {
                guard let card = parameters.value(["card"]) else { throw StripeError.missing("card") }
                data.append(("card", card))
            }
            if let billing = parameters.value(["billing_details"]) { data.append(("billing_details", billing)) }
            let metadata = try parameters.metadata("metadata") ?? []
            let reading = Parameters(.object([("payment_method_data", .object(data))]))
            guard let card = try PaymentMethodParameters.read(reading, tag: tag, idempotencyKey: idempotencyKey) else {
                throw StripeError.missing("card")
            }
            return .ok(ObjectJSON.paymentMethod(register(tag, card, metadata: metadata)))
        } catch {
            return .error(error)
        }
    }

    func retrievePaymentMethod(_ tag: String, id: String) -> Reply {
        guard let method = account(tag).paymentMethods[id] else { return .error(.resourceMissing("payment_method", id)) }
        return .ok(ObjectJSON.paymentMethod(method))
    }

    /// GET /v1/payment_methods — a customer's payment methods (`customer`, required here as at
    /// Stripe for cards), newest first, with the cursors.
    func listPaymentMethods(_ tag: String, _ query: Parameters) -> Reply {
        do throws(StripeError) {
            if let type = try query.string("type"), type != "card" {
                throw .invalidRequest("type must be card: this mock takes cards only.", param: "type")
            }
            guard let customer = try query.string("customer") else { throw StripeError.missing("customer") }
            let methods = account(tag).paymentMethods
            let order = methods.ids(withIndexKey: StoredCustomer.indexKey(customer)) ?? CreationOrder()
            let page = try Pagination.page(order, query: query, kind: "payment_method") { methods[$0]?.created }
            return .ok(ObjectJSON.list(page.ids.compactMap { methods[$0].map(ObjectJSON.paymentMethod) }, hasMore: page.hasMore, url: "/v1/payment_methods"))
        } catch {
            return .error(error)
        }
    }

    /// POST /v1/payment_methods/{id}/attach — `customer`. Attached to another customer already:
    /// 400, as at Stripe (detach it first).
    func attachPaymentMethod(_ tag: String, id: String, _ parameters: Parameters) -> Reply {
        do throws(StripeError) {
            guard var method = account(tag).paymentMethods[id] else { throw StripeError.resourceMissing("payment_method", id) }
            guard let customer = try parameters.string("customer") else { throw StripeError.missing("customer") }
            try requireCustomer(tag, customer, param: "customer")
            if let current = method.customer, current != customer {
                throw .invalidRequest(
                    "The payment method you provided has already been attached to a customer (\(current)): detach it first.", param: "customer")
            }
            method.customer = customer
            let attached = method
            update(tag) { $0.paymentMethods[id] = attached }
            return .ok(ObjectJSON.paymentMethod(attached))
        } catch {
            return .error(error)
        }
    }

    /// POST /v1/payment_methods/{id}/detach. Not attached: 400, as at Stripe.
    func detachPaymentMethod(_ tag: String, id: String) -> Reply {
        guard var method = account(tag).paymentMethods[id] else { return .error(.resourceMissing("payment_method", id)) }
        guard let customer = method.customer else {
            return .error(.invalidRequest("The payment method \(id) is not attached to a customer, so it cannot be detached."))
        }
        method.customer = nil
        let detached = method
        update(tag) { account in
            account.paymentMethods[id] = detached
            if account.customers[customer]?.defaultPaymentMethod == id { account.customers[customer]?.defaultPaymentMethod = nil }
        }
        return .ok(ObjectJSON.paymentMethod(detached))
    }

    // MARK: - Customers

    /// What `POST /v1/customers` and `POST /v1/customers/{id}` take.
    static let customerShape = ParameterShape.members([
        "email": .value, "name": .value, "description": .value, "phone": .value, "metadata": .hash, "payment_method": .value,
        "invoice_settings": .members(["default_payment_method": .value]), "expand": .list,
    ])

    /// A customer that exists and is not deleted, or `resource_missing` naming `param`.
    func requireCustomer(_ tag: String, _ id: String, param: String) throws(StripeError) {
        guard let customer = account(tag).customers[id], !customer.deleted else {
            throw .resourceMissing("customer", id, param: param)
        }
    }

    /// POST /v1/customers
    func createCustomer(_ tag: String, _ parameters: Parameters, idempotencyKey: String?) -> Reply {
        do throws(StripeError) {
            try checkRoom(tag)
            let id = Self.objectID(prefix: "cus", tag: tag, idempotencyKey: idempotencyKey)
            let prefix = String(id.dropFirst(4).prefix(8)).uppercased()
            var customer = StoredCustomer(
                id: id, email: nil, name: nil, description: nil, phone: nil, metadata: [], defaultPaymentMethod: nil,
                invoicePrefix: prefix, created: now(tag))
            try apply(parameters, to: &customer, tag: tag)
            let made = customer
            if let method = try parameters.string("payment_method") {
                // Stripe attaches the payment method given at creation.
                guard account(tag).paymentMethods[method] != nil else { throw .resourceMissing("payment_method", method, param: "payment_method") }
                update(tag) { $0.customers[id] = made }
                if case .respond(let status, let json, _, _) = attachPaymentMethod(tag, id: method, Parameters(.object([("customer", .string(id))]))),
                    status != .ok {
                    update(tag) { $0.customers[id] = nil }
                    throw StripeError(status: status, type: "invalid_request_error", message: json["error"]?["message"]?.stringValue ?? "The payment method could not be attached.", param: "payment_method")
                }
            }
            update(tag) { $0.customers[id] = made }
            return .ok(ObjectJSON.customer(made))
        } catch {
            return .error(error)
        }
    }

    func retrieveCustomer(_ tag: String, id: String) -> Reply {
        guard let customer = account(tag).customers[id] else { return .error(.resourceMissing("customer", id)) }
        return .ok(ObjectJSON.customer(customer))
    }

    /// POST /v1/customers/{id}: the fields given change (empty unsets), metadata merges.
    func updateCustomer(_ tag: String, id: String, _ parameters: Parameters) -> Reply {
        do throws(StripeError) {
            try requireCustomer(tag, id, param: "id")
            guard var customer = account(tag).customers[id] else { throw StripeError.resourceMissing("customer", id) }
            if parameters.value(["payment_method"]) != nil {
                throw .invalidRequest("payment_method is taken when a customer is created; attach one later with POST /v1/payment_methods/{id}/attach.", param: "payment_method")
            }
            try apply(parameters, to: &customer, tag: tag)
            let updated = customer
            update(tag) { $0.customers[id] = updated }
            return .ok(ObjectJSON.customer(updated))
        } catch {
            return .error(error)
        }
    }

    /// DELETE /v1/customers/{id}: marked deleted (retrieving it says so), its payment methods detached.
    func deleteCustomer(_ tag: String, id: String) -> Reply {
        guard var customer = account(tag).customers[id], !customer.deleted else { return .error(.resourceMissing("customer", id)) }
        customer.deleted = true
        let deleted = customer
        let attached = account(tag).paymentMethods.ids(withIndexKey: StoredCustomer.indexKey(id)).map { Array($0.newestFirst) } ?? []
        update(tag) { account in
            account.customers[id] = deleted
            for method in attached { account.paymentMethods[method]?.customer = nil }
        }
        return .ok(ObjectJSON.customer(deleted))
    }

    /// GET /v1/customers — `email` (exact), `created`, the cursors; deleted ones left out.
    func listCustomers(_ tag: String, _ query: Parameters) -> Reply {
        do throws(StripeError) {
            let customers = account(tag).customers
            var order = customers.order
            if let email = try query.string("email") { order = customers.ids(withIndexKey: "email\u{0}\(email)") ?? CreationOrder() }
            var live = CreationOrder()
            for id in Array(order.newestFirst).reversed() where customers[id]?.deleted == false { live.append(id) }
            let page = try Pagination.page(live, query: query, kind: "customer") { customers[$0]?.created }
            return .ok(ObjectJSON.list(page.ids.compactMap { customers[$0].map(ObjectJSON.customer) }, hasMore: page.hasMore, url: "/v1/customers"))
        } catch {
            return .error(error)
        }
    }

    /// The customer fields `parameters` set, each checked as Stripe checks it.
    private func apply(_ parameters: Parameters, to customer: inout StoredCustomer, tag: String) throws(StripeError) {
        func text(_ name: String, limit: Int) throws(StripeError) -> String?? {
            guard let value = try parameters.string(name) else { return .none }
            guard value.count <= limit else { throw .invalidRequest("\(name) is longer than \(limit) characters.", param: name) }
            return .some(value.isEmpty ? nil : value)
        }
        if let email = try text("email", limit: 512) {
            if let email { _ = try Self.receiptEmail(email, param: "email") }
            customer.email = email
        }
        if let name = try text("name", limit: 256) { customer.name = name }
        if let description = try text("description", limit: 350) { customer.description = description }
        if let phone = try text("phone", limit: 20) { customer.phone = phone }
        customer.metadata = try Self.merged(customer.metadata, update: parameters)
        if let method = try parameters.string("invoice_settings", "default_payment_method") {
            if method.isEmpty {
                customer.defaultPaymentMethod = nil
            } else {
                guard account(tag).paymentMethods[method]?.customer == customer.id else {
                    throw .invalidRequest(
                        "The customer does not have a payment method with the ID \(method): attach it first.", param: "invoice_settings[default_payment_method]")
                }
                customer.defaultPaymentMethod = method
            }
        }
    }

    // MARK: - Charges

    /// Records the charge of the intent's current authorization: `succeeded` when approved,
    /// `failed` with the card error when declined. Once per authorization: a second decision
    /// about the same one (a lookup after a lost answer) keeps the first.
    func recordCharge(_ tag: String, intent: StoredIntent, paymentMethod: String?, failure: (code: String, declineCode: String?, message: String)?) -> String {
        let id = "ch_" + String(intent.id.dropFirst(3)) + String(intent.authorizations)
        guard account(tag).charges[id] == nil else { return id }
        let charge = StoredCharge(
            id: id, paymentIntent: intent.id, amount: intent.amount, currency: intent.currency, status: failure == nil ? "succeeded" : "failed",
            paymentMethod: paymentMethod, customer: intent.customer, description: intent.description, receiptEmail: intent.receiptEmail,
            failureCode: failure?.code, declineCode: failure?.declineCode, failureMessage: failure?.message, created: now(tag))
        update(tag) { $0.charges[id] = charge }
        return id
    }

    func chargeJSON(_ tag: String, _ charge: StoredCharge) -> JSONValue {
        let account = account(tag)
        let refunds = (account.refunds.ids(withIndexKey: StoredRefund.intentIndexKey(charge.paymentIntent))?.newestFirst).map { Array($0) } ?? []
        return ObjectJSON.charge(
            charge, intent: account.intents[charge.paymentIntent], method: charge.paymentMethod.flatMap { account.paymentMethods[$0] },
            refunds: refunds.compactMap { account.refunds[$0] }.filter { $0.charge == charge.id })
    }

    func retrieveCharge(_ tag: String, id: String) -> Reply {
        guard let charge = account(tag).charges[id] else { return .error(.resourceMissing("charge", id)) }
        return .ok(chargeJSON(tag, charge))
    }

    /// GET /v1/charges/search — Stripe's search language over the charge fields
    /// (`ChargeSearchView`), `limit`, `page`; newest first, immediate.
    func searchCharges(_ tag: String, _ query: Parameters) -> Reply {
        do throws(StripeError) {
            guard let text = try query.string("query") else { throw StripeError.missing("query") }
            let search = try SearchFilter<ChargeSearchView>(SearchQuery.parse(text))
            let limit = Int(try query.integer("limit", in: 1...100) ?? 10)
            let account = account(tag)
            let matches = account.charges.order.newestFirst.compactMap { id -> ChargeSearchView? in
                guard let charge = account.charges[id] else { return nil }
                let view = ObjectJSON.charge(charge, intent: account.intents[charge.paymentIntent], method: nil, refunds: [])
                return ChargeSearchView(
                    charge: charge, metadata: account.intents[charge.paymentIntent]?.metadata ?? [], refunded: view["refunded"] == true,
                    method: charge.paymentMethod.flatMap { account.paymentMethods[$0] })
            }.filter(search.matches)
            return .ok(try SearchQuery.resultPage(matches, id: \.charge.id, query: query, limit: limit, url: "/v1/charges/search") {
                chargeJSON(tag, $0.charge)
            })
        } catch {
            return .error(error)
        }
    }

    /// GET /v1/charges — `payment_intent` or `customer`, `created`, the cursors; newest first.
    func listCharges(_ tag: String, _ query: Parameters) -> Reply {
        do throws(StripeError) {
            let charges = account(tag).charges
            var order = charges.order
            if let intent = try query.string("payment_intent") { order = charges.ids(withIndexKey: StoredRefund.intentIndexKey(intent)) ?? CreationOrder() }
            if let customer = try query.string("customer") {
                let owned = charges.ids(withIndexKey: StoredCustomer.indexKey(customer)) ?? CreationOrder()
                var both = CreationOrder()
                for id in Array(order.newestFirst).reversed() where owned.contains(id) { both.append(id) }
                order = both
            }
            let page = try Pagination.page(order, query: query, kind: "charge") { charges[$0]?.created }
            return .ok(ObjectJSON.list(page.ids.compactMap { id in charges[id].map { chargeJSON(tag, $0) } }, hasMore: page.hasMore, url: "/v1/charges"))
        } catch {
            return .error(error)
        }
    }
}

extension StoredPaymentMethod {
    /// The public face of `card`: what Stripe shows, never the number.
    init(card: PaymentMethodCard, account tag: String, created: Date, metadata: [(String, String)] = []) {
        let digits = card.method.cardNumber.digits
        let test = StripeTestCards.card(number: digits)
        let wallet: String? = if case .networkToken = card.method { "apple_pay" } else { nil }
        self.init(
            id: card.id, brand: card.brand, last4: card.method.cardNumber.last4, expMonth: card.expMonth, expYear: card.expYear,
            country: test?.country, funding: test?.funding ?? "unknown",
            fingerprint: String(SHA256.hash("fingerprint\u{0}\(tag)\u{0}\(digits)").hexString.prefix(16)), wallet: wallet,
            holderName: card.method.holderName, customer: nil, metadata: metadata, created: created)
    }
}
