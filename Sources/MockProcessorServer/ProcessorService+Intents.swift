import Foundation
import MockProcessor
import PayPanel

extension ProcessorService {
    /// What `POST /v1/payment_intents/{id}/confirm` takes.
    static let confirmShape = ParameterShape.members([
        "payment_method": .value, "payment_method_data": PaymentMethodParameters.shape,
        "off_session": .value, "setup_future_usage": .value,
        "capture_method": .ignored, "expand": .list, "return_url": .ignored, "use_stripe_sdk": .ignored,
    ])
    /// What `POST /v1/payment_intents` takes: the confirm's parameters and the intent's own.
    static let createShape = confirmShape.adding([
        "amount": .value, "currency": .value, "confirm": .value, "metadata": .hash, "description": .value, "capture_method": .value,
        "customer": .value, "receipt_email": .value,
        "payment_method_types": .list, "confirmation_method": .ignored, "statement_descriptor": .ignored,
        "automatic_payment_methods": .members(["enabled": .value, "allow_redirects": .value]),
    ])

    /// `setup_future_usage`: `on_session` or `off_session` (Stripe's values), echoed on the intent.
    static func setupFutureUsage(_ parameters: Parameters) throws(StripeError) -> String? {
        guard let value = try parameters.string("setup_future_usage") else { return nil }
        guard ["on_session", "off_session"].contains(value) else {
            throw .invalidRequest("setup_future_usage must be on_session or off_session.", param: "setup_future_usage")
        }
        return value
    }

    /// `off_session`: `true` or `false`, or Stripe's `one_off` and `recurring` (both off session).
    static func offSession(_ parameters: Parameters) throws(StripeError) -> Bool {
        guard let value = try parameters.string("off_session") else { return false }
        switch value {
        case "true", "one_off", "recurring": return true
        case "false": return false
        default: throw .invalidRequest("off_session must be true, false, one_off or recurring.", param: "off_session")
        }
    }

    /// `automatic_payment_methods[enabled]` and `[allow_redirects]`: the intent's
    /// `allow_redirects` (`always` unless `never` is asked for) when enabled, else nil. The mock
    /// takes cards only, so `payment_method_types`, when given, must be `[card]`.
    static func automaticPaymentMethods(_ parameters: Parameters) throws(StripeError) -> String? {
        if case .list(let types)? = parameters.value(["payment_method_types"]), types != [.string("card")] {
            throw .invalidRequest("payment_method_types must be [card]: this mock takes cards only.", param: "payment_method_types")
        }
        guard parameters.value(["automatic_payment_methods"]) != nil else { return nil }
        guard let enabled = try parameters.boolean("automatic_payment_methods", "enabled") else {
            throw StripeError.missing("automatic_payment_methods[enabled]")
        }
        let redirects = try parameters.string("automatic_payment_methods", "allow_redirects") ?? "always"
        guard redirects == "always" || redirects == "never" else {
            throw .invalidRequest("automatic_payment_methods[allow_redirects] must be always or never.", param: "automatic_payment_methods[allow_redirects]")
        }
        guard enabled else { return nil }
        if parameters.value(["payment_method_types"]) != nil {
            throw .invalidRequest("Give automatic_payment_methods or payment_method_types, not both.", param: "payment_method_types")
        }
        return redirects
    }

    /// Stripe refuses to confirm an intent whose automatic payment methods may redirect the
    /// payer (`allow_redirects` not `never`) without a `return_url` to come back to.
    static func requireReturnURL(_ parameters: Parameters, automaticPaymentMethods: String?) throws(StripeError) {
        guard automaticPaymentMethods == "always", try parameters.string("return_url") == nil else { return }
        throw .invalidRequest(
            "This PaymentIntent is configured to accept payment methods that may redirect the payer, so confirming it needs a return_url; or set automatic_payment_methods[allow_redirects]=never when creating it.",
            param: "return_url")
    }

    /// `currency`, required: a lower-case ISO 4217 code.
    static func currency(_ parameters: Parameters) throws(StripeError) -> Currency {
        guard let code = try parameters.string("currency") else { throw StripeError.missing("currency") }
        do {
            return try Currency(code: code.uppercased())
        } catch {
            throw StripeError.invalidRequest("Invalid currency: \(code.prefix(10)). Use a lower-case ISO 4217 code such as usd.", param: "currency")
        }
    }

    /// POST /v1/payment_intents
    func createIntent(
        _ tag: String, _ parameters: Parameters, idempotencyKey: String?, scenario: String?, version: StripeAPIVersion = .accountDefault
    ) async -> Reply {
        do {
            try checkRoom(tag)
            guard parameters.value(["amount"]) != nil else { throw StripeError.missing("amount") }
            let currency = try Self.currency(parameters)
            guard let amount = try StripeAmount.read(parameters, "amount", currency: currency) else { throw StripeError.missing("amount") }
            let captureMethod = try parameters.string("capture_method") ?? version.defaultCaptureMethod
            guard Self.captureMethods.contains(captureMethod) else {
                throw StripeError.invalidRequest("capture_method must be automatic, automatic_async or manual.", param: "capture_method")
            }
            var receiptEmail: String?
            if let email = try parameters.string("receipt_email") { receiptEmail = try Self.receiptEmail(email) }
            let description = try parameters.string("description")
            if let description, description.count > 1000 { throw StripeError.invalidRequest("description is longer than 1000 characters.", param: "description") }
            let metadata = try parameters.metadata("metadata") ?? []
            let customer = try parameters.string("customer")
            if let customer { try requireCustomer(tag, customer, param: "customer") }
            let card = try paymentMethod(tag, parameters, idempotencyKey: idempotencyKey)
            let confirm = try parameters.boolean("confirm") ?? false
            let automaticPaymentMethods = try Self.automaticPaymentMethods(parameters)
            if confirm { try Self.requireReturnURL(parameters, automaticPaymentMethods: automaticPaymentMethods) }
            let setupFutureUsage = try Self.setupFutureUsage(parameters)
            let offSession = try Self.offSession(parameters)
            if parameters.value(["off_session"]) != nil, !confirm {
                // As at Stripe: whether the payer is present is said when the intent is confirmed.
                throw StripeError.invalidRequest("off_session can be given only with confirm=true: confirm the intent with off_session, or create it with confirm=true.", param: "off_session")
            }
            let id = Self.objectID(prefix: "pi", tag: tag, idempotencyKey: idempotencyKey)
            if let existing = account(tag).intents[id] {
                // Only a retry with the same Idempotency-Key meets its own id, and only after the
                // first try's answer was a fault (faults are not stored for replay): answer with
                // what that try left, never with a refusal the client would take for a decline.
                return currentAnswer(existing)
            }
            let secret = Self.objectID(prefix: "secret", tag: tag, idempotencyKey: idempotencyKey.map { "secret:" + $0 })
            let intent = StoredIntent(
                id: id, clientSecret: id + "_" + secret, amount: amount, currency: currency, captureMethod: captureMethod,
                description: description, metadata: metadata, created: now(tag),
                status: card == nil ? "requires_payment_method" : "requires_confirmation", paymentMethod: card, receiptEmail: receiptEmail,
                setupFutureUsage: setupFutureUsage, customer: customer, automaticPaymentMethods: automaticPaymentMethods)
            update(tag) { $0.intents[id] = intent }
            guard confirm else { return .ok(ObjectJSON.intent(intent, baseURL: baseURL)) }
            guard card != nil else {
                undoAuthorization(tag, intentID: id, createdNow: true)
                throw StripeError.missing("payment_method")
            }
            return await authorize(tag, intentID: id, scenario: scenario, createdNow: true, offSession: offSession)
        } catch let error as StripeError {
            return .error(error)
        } catch {
            return .error(.apiError("Unexpected failure."))
        }
    }

    /// The answer a create would have given for the intent as it is now: 402 for a declined
    /// one, 409 while it is still being processed, else 200.
    func currentAnswer(_ intent: StoredIntent) -> Reply {
        if intent.status == "processing" {
            return .error(StripeError(
                status: .conflict, type: "idempotency_error", code: "idempotency_key_in_use",
                message: "The first request with this Idempotency-Key is still being processed: retry later."))
        }
        if intent.status == "requires_payment_method", let error = intent.lastPaymentError {
            var stripeError = StripeError(
                status: .paymentRequired, type: "card_error", code: error["code"]?.stringValue,
                declineCode: error["decline_code"]?.stringValue, message: error["message"]?.stringValue ?? "Your card was declined.",
                param: error["param"]?.stringValue)
            stripeError.extra = [("payment_intent", ObjectJSON.intent(intent, baseURL: baseURL))]
            return .error(stripeError)
        }
        return .ok(ObjectJSON.intent(intent, baseURL: baseURL))
    }

    /// GET /v1/payment_intents/{id}
    func retrieveIntent(_ tag: String, id: String) -> Reply {
        guard let intent = account(tag).intents[id] else { return .error(.resourceMissing("payment_intent", id)) }
        return .ok(ObjectJSON.intent(intent, baseURL: baseURL))
    }

    /// POST /v1/payment_intents/{id}/confirm
    func confirmIntent(_ tag: String, id: String, _ parameters: Parameters, idempotencyKey: String?, scenario: String?) async -> Reply {
        do {
            guard var intent = account(tag).intents[id] else { throw StripeError.resourceMissing("payment_intent", id) }
            guard ["requires_payment_method", "requires_confirmation"].contains(intent.status) else {
                throw StripeError.unexpectedState("This PaymentIntent's status is \(intent.status); it can be confirmed only in requires_payment_method or requires_confirmation.")
            }
            if let card = try paymentMethod(tag, parameters, idempotencyKey: idempotencyKey) {
                intent.paymentMethod = card
            }
            let offSession = try Self.offSession(parameters)
            try Self.requireReturnURL(parameters, automaticPaymentMethods: intent.automaticPaymentMethods)
            if let setupFutureUsage = try Self.setupFutureUsage(parameters) { intent.setupFutureUsage = setupFutureUsage }
            guard intent.paymentMethod != nil else { throw StripeError.missing("payment_method") }
            let saved = intent
            update(tag) { $0.intents[id] = saved }
            return await authorize(tag, intentID: id, scenario: scenario, createdNow: false, offSession: offSession)
        } catch let error as StripeError {
            return .error(error)
        } catch {
            return .error(.apiError("Unexpected failure."))
        }
    }

    /// POST /v1/payment_intents/{id}/capture
    func captureIntent(_ tag: String, id: String, _ parameters: Parameters) async -> Reply {
        do {
            guard var intent = account(tag).intents[id] else { throw StripeError.resourceMissing("payment_intent", id) }
            guard intent.status == "requires_capture" else {
                throw StripeError.unexpectedState("This PaymentIntent's status is \(intent.status); only requires_capture can be captured.")
            }
            let amount = try parameters.integer("amount_to_capture", in: 1...intent.amountCapturable) ?? intent.amountCapturable
            // Stripe's capture takes metadata, merged as an update merges it.
            intent.metadata = try Self.merged(intent.metadata, update: parameters)
            let reference = intent.ledgerReference(accountPrefix: account(tag).ledgerPrefix)
            intent.status = "processing"
            let marked = intent
            update(tag) { $0.intents[id] = marked }
            // Written ahead of the ledger call, as an authorization is: a crash in between
            // leaves the intent `processing`, and the next start settles it from the ledger.
            writeAhead(tag)
            let request = CaptureRequest(reference: reference, amount: Amount(minorUnits: amount, currency: intent.currency))
            let answer = onMock(at: tag) { mock, now in mock.captureOverWire(request, now: now) }
            var result: ProcessorOutcome?
            var reply: Reply
            // Set when the caller does not get the capture's outcome in its answer: then a webhook tells.
            var lateEvent: Duration?
            switch answer {
            case .answer(let outcome, let delay):
                result = outcome
                reply = .ok(.null, delay: delay)
            case .noAnswer:
                if case .found(let outcome)? = try? await mock.lookupOverWire(reference: reference, operation: .capture, now: now(tag)) { result = outcome }
                reply = .hold
                lateEvent = .zero
            case .serverError(let delay):
                if case .found(let outcome)? = try? await mock.lookupOverWire(reference: reference, operation: .capture, now: now(tag)) { result = outcome }
                reply = .error(.apiError("An internal error occurred; the capture may or may not have happened: retrieve the intent."), delay: delay)
                lateEvent = delay
            case .refused(_, let reason, let delay):
                var error = StripeError(status: .serviceUnavailable, type: "api_error", message: reason)
                error.headers = ["Retry-After": "1"]
                reply = .error(error, delay: delay)
            }
            intent.status = "requires_capture"
            if case .approved(let approval)? = result {
                intent.status = "succeeded"
                intent.amountReceived = approval.amount.minorUnits
                intent.amountCapturable = 0
            } else if case .declined(let code)? = result, case .respond(_, _, _, let delay) = reply {
                let error = Self.requestError(code)
                    ?? StripeError(status: .paymentRequired, type: "card_error", code: "card_declined", declineCode: code.rawValue, message: "The capture was refused (\(code.rawValue)).")
                reply = .error(error, delay: delay)
            }
            let saved = intent
            update(tag) { $0.intents[id] = saved }
            if let lateEvent { await emitCaptureEvent(tag, intentID: id, outcome: result, after: lateEvent) }
            if case .respond(.ok, _, _, let delay) = reply { return .ok(ObjectJSON.intent(saved, baseURL: baseURL), delay: delay) }
            return reply
        } catch let error as StripeError {
            return .error(error)
        } catch {
            return .error(.apiError("Unexpected failure."))
        }
    }

    /// POST /v1/payment_intents/{id}/cancel
    func cancelIntent(_ tag: String, id: String, _ parameters: Parameters) async -> Reply {
        do {
            guard var intent = account(tag).intents[id] else { throw StripeError.resourceMissing("payment_intent", id) }
            let reason = try parameters.string("cancellation_reason") ?? nil
            if let reason, !["duplicate", "fraudulent", "requested_by_customer", "abandoned"].contains(reason) {
                throw StripeError.invalidRequest("cancellation_reason must be duplicate, fraudulent, requested_by_customer or abandoned.", param: "cancellation_reason")
            }
            switch intent.status {
            case "requires_payment_method", "requires_confirmation", "requires_action":
                break
            case "requires_capture":
                let reference = intent.ledgerReference(accountPrefix: account(tag).ledgerPrefix)
                intent.status = "processing"
                let marked = intent
                update(tag) { $0.intents[id] = marked }
                writeAhead(tag)  // written ahead of the ledger call, as a capture is
                let answer = onMock(at: tag) { mock, now in mock.voidOverWire(reference: reference, now: now) }
                intent.status = "requires_capture"
                guard case .answer(.approved, _) = answer else {
                    let saved = intent
                    update(tag) { $0.intents[id] = saved }
                    if case .answer(.declined(let code), let delay) = answer {
                        return .error(Self.requestError(code) ?? .unexpectedState("The authorization could not be released (\(code.rawValue))."), delay: delay)
                    }
                    return .error(.apiError("The processor could not release the authorization: retry."))
                }
                intent.amountCapturable = 0
            default:
                throw StripeError.unexpectedState("This PaymentIntent's status is \(intent.status); it cannot be canceled.")
            }
            intent.status = "canceled"
            intent.canceledAt = now(tag)
            intent.cancellationReason = reason
            let saved = intent
            update(tag) { $0.intents[id] = saved }
            return .ok(ObjectJSON.intent(saved, baseURL: baseURL))
        } catch let error as StripeError {
            return .error(error)
        } catch {
            return .error(.apiError("Unexpected failure."))
        }
    }

    /// GET /v1/payment_intents — newest first, cursor pagination (a page costs its own length,
    /// not the account's: `CreationOrder`).
    func listIntents(_ tag: String, _ query: Parameters) -> Reply {
        do {
            let intents = account(tag).intents
            let page = try Pagination.page(intents.order, query: query, kind: "payment_intent") { intents[$0]?.created }
            return .ok(ObjectJSON.list(page.ids.compactMap { intents[$0].map { ObjectJSON.intent($0, baseURL: baseURL) } }, hasMore: page.hasMore, url: "/v1/payment_intents"))
        } catch {
            return .error(error)
        }
    }

    /// GET /v1/payment_intents/search — Stripe's search query language over PaymentIntents'
    /// fields (`SearchQuery`, `SearchFilter`), `limit`, and Stripe's `page` token (the
    /// `next_page` of the page before: the SDKs' `auto_paging_iter` follows it, and loops on
    /// the first page forever when `has_more` is true without one). Immediate here; Stripe's
    /// index can lag a minute. An AND query with a `metadata['k']:'v'` clause looks only at the
    /// intents carrying that pair (the table's index); any other query reads every intent of
    /// the account.
    func searchIntents(_ tag: String, _ query: Parameters) -> Reply {
        do throws(StripeError) {
            guard let text = try query.string("query") else { throw StripeError.missing("query") }
            let search = try SearchFilter<StoredIntent>(SearchQuery.parse(text))
            let limit = Int(try query.integer("limit", in: 1...100) ?? 10)
            let intents = account(tag).intents
            // The fewest candidates a metadata clause gives (none carry the pair: no match).
            var candidates = intents.order
            for (key, value) in search.requiredMetadataPairs {
                let carrying = intents.ids(withIndexKey: StoredIntent.metadataIndexKey(key, value)) ?? CreationOrder()
                if carrying.count < candidates.count { candidates = carrying }
            }
            let matches = candidates.newestFirst.compactMap { intents[$0] }.filter(search.matches)
            return .ok(try SearchQuery.resultPage(
                matches, id: \.id, query: query, limit: limit, url: "/v1/payment_intents/search") { ObjectJSON.intent($0, baseURL: baseURL) })
        } catch {
            return .error(error)
        }
    }

    /// The 3-D Secure test endpoint: passes or fails the challenge, as the cardholder would.
    func completeChallenge(_ tag: String, id: String, passed: Bool) async -> Reply {
        guard let intent = account(tag).intents[id] else { return .error(.resourceMissing("payment_intent", id)) }
        guard intent.status == "requires_action" else {
            return .error(.unexpectedState("This PaymentIntent's status is \(intent.status); only requires_action has a challenge."))
        }
        let reference = intent.ledgerReference(accountPrefix: account(tag).ledgerPrefix)
        let answer = onMock(at: tag) { mock, now in mock.completeChallengeOverWire(reference: reference, passed: passed, now: now) }
        guard case .answer(let outcome, let delay) = answer else { return .error(.apiError("The challenge could not be completed: retry.")) }
        return await apply(outcome, tag: tag, intentID: id, delay: delay)
    }
}

/// Stripe's cursor pagination, newest first: `limit` (1–100, default 10), `starting_after`,
/// `ending_before`, and the `created` filter (`created=T` or `created[gt|gte|lt|lte]=T`, Unix
/// seconds) over `created(id)`.
enum Pagination {
    static func page(
        _ order: CreationOrder, query: Parameters, kind: String, created: (String) -> Date?
    ) throws(StripeError) -> (ids: [String], hasMore: Bool) {
        var order = order
        if let range = try CreatedRange(query) {
            // Only when asked: a pass over the account's objects, oldest first to keep the order.
            var kept = CreationOrder()
            for id in Array(order.newestFirst).reversed() where created(id).map(range.contains) ?? false { kept.append(id) }
            order = kept
        }
        let limit = Int(try query.integer("limit", in: 1...100) ?? 10)
        let after = try query.string("starting_after")
        let before = try query.string("ending_before")
        guard after == nil || before == nil else {
            throw .invalidRequest("Give starting_after or ending_before, not both.", param: "ending_before")
        }
        guard let page = order.page(after: after, before: before, limit: limit) else {
            let cursor = after ?? before ?? ""
            throw .resourceMissing(kind, cursor, param: after != nil ? "starting_after" : "ending_before")
        }
        return page
    }
}

/// A list's `created` filter: one time, or bounds (`gt`, `gte`, `lt`, `lte`), in Unix seconds.
struct CreatedRange {
    var lower: (seconds: Int64, inclusive: Bool)?
    var upper: (seconds: Int64, inclusive: Bool)?

    /// Nil when the query has no `created`.
    init?(_ query: Parameters) throws(StripeError) {
        guard let value = query.value(["created"]) else { return nil }
        let bound = 4_102_444_800 as Int64  // 2100-01-01
        if case .string = value {
            let exact = try query.integer("created", in: 0...bound) ?? 0
            lower = (exact, true)
            upper = (exact, true)
            return
        }
        if let gt = try query.integer("created", "gt", in: 0...bound) { lower = (gt, false) }
        if let gte = try query.integer("created", "gte", in: 0...bound) { lower = (gte, true) }
        if let lt = try query.integer("created", "lt", in: 0...bound) { upper = (lt, false) }
        if let lte = try query.integer("created", "lte", in: 0...bound) { upper = (lte, true) }
        guard lower != nil || upper != nil else {
            throw .invalidRequest("created takes a Unix time, or created[gt], [gte], [lt] or [lte].", param: "created")
        }
    }

    func contains(_ date: Date) -> Bool {
        let seconds = date.unixSeconds
        if let lower, lower.inclusive ? seconds < lower.seconds : seconds <= lower.seconds { return false }
        if let upper, upper.inclusive ? seconds > upper.seconds : seconds >= upper.seconds { return false }
        return true
    }
}
