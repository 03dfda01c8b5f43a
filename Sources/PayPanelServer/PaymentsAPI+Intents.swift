import Foundation
import PayPanel
import PayPanelHTTP

// /v1/payment_intents: create, read, list, confirm, capture, cancel, challenge.
extension PaymentsAPI {
    func addIntentRoutes(to router: inout RouteGroup) {
        router.post("/v1/payment_intents") { context in
            let body = try RequestBody(context, allowed: ["amount", "currency", "capture_method", "order_reference", "metadata"])
            let request = try Self.newIntent(body)
            return try await idempotent(context, resume: { intentID in
                APIResponse.json(APIObjects.intent(try await Self.requireIntent(intentID, from: service)))
            }) { recoveryPoint in
                APIResponse.json(APIObjects.intent(try await service.createIntent(request, recoveryPoint: recoveryPoint)))
            }
        }
        router.get("/v1/payment_intents/{id}") { context in
            let includeEvents = try Self.includesEvents(context)
            guard let details = try await service.details(Self.id(context)) else {
                throw APIError.missing("payment_intent", Self.id(context))
            }
            return APIResponse.json(APIObjects.intent(
                details.intent, attempts: details.attempts, refunds: details.refunds, events: includeEvents ? details.events : nil))
        }
        router.get("/v1/payment_intents") { context in
            let query = try ListQuery(context)
            let page = try await service.intentPage(
                status: query.status, metadata: query.metadata, startingAfter: query.startingAfter, endingBefore: query.endingBefore,
                limit: query.limit)
            return APIResponse.json(APIObjects.list(page.intents.map { APIObjects.intent($0) }, hasMore: page.hasMore, url: "/v1/payment_intents"))
        }
        router.post("/v1/payment_intents/{id}/confirm") { context in
            let body = try RequestBody(context, allowed: ["payment_method"])
            let method = try Self.confirmMethod(body, decryptor: tokenDecryptor)
            let id = Self.id(context)
            return try await idempotent(context, resume: { attemptID in
                try Self.authorizationResponse(try await service.resume(attemptID: attemptID, intentID: id))
            }) { recoveryPoint in
                try Self.authorizationResponse(try await confirm(id, with: method, recoveryPoint: recoveryPoint))
            }
        }
        router.post("/v1/payment_intents/{id}/challenge") { context in
            let body = try RequestBody(context, allowed: ["passed"])
            let passed = try body.bool("passed", required: true) ?? false
            let id = Self.id(context)
            return try await idempotent(context, resume: { attemptID in
                try Self.authorizationResponse(try await service.resume(attemptID: attemptID, intentID: id))
            }) { recoveryPoint in
                try Self.authorizationResponse(
                    try await service.completeChallenge(id, result: passed ? .passed : .failed, recoveryPoint: recoveryPoint))
            }
        }
        router.post("/v1/payment_intents/{id}/capture") { context in
            let body = try RequestBody(context, allowed: ["amount"])
            let amount = try body.integer("amount")
            if let amount, amount <= 0 { throw APIError.invalid("parameter_invalid", "amount must be a positive integer (minor units)", param: "amount") }
            let id = Self.id(context)
            return try await idempotent(context, resume: { intentID in
                APIResponse.json(APIObjects.intent(try await service.resume(intentID: intentID).intent))
            }) { recoveryPoint in
                APIResponse.json(APIObjects.intent(try await service.capture(id, amount: amount, recoveryPoint: recoveryPoint).intent))
            }
        }
        router.post("/v1/payment_intents/{id}/cancel") { context in
            let body = try RequestBody(context, allowed: ["reason"])
            let reason = try Self.cancellationReason(body)
            let id = Self.id(context)
            return try await idempotent(context, resume: { intentID in
                APIResponse.json(APIObjects.intent(try await service.resume(intentID: intentID).intent))
            }) { recoveryPoint in
                APIResponse.json(APIObjects.intent(try await service.cancel(id, reason: reason, recoveryPoint: recoveryPoint).intent))
            }
        }
    }

    /// The intent `id`, or 404.
    static func requireIntent(_ id: String, from service: PaymentService) async throws -> PaymentIntent {
        guard let intent = try await service.details(id)?.intent else { throw APIError.missing("payment_intent", id) }
        return intent
    }

    /// 200 with the intent, or 402 with it when the attempt failed (a decline): the intent is
    /// back in `requires_payment_method`. An unknown outcome is a 200 with the intent in
    /// `processing`, which reconciliation finishes.
    static func authorizationResponse(_ outcome: PaymentOutcome) throws -> HTTPResponse {
        let intent = APIObjects.intent(outcome.intent, attempts: outcome.attempt.map { [$0] })
        if let attempt = outcome.attempt, attempt.status == .failed, let failure = attempt.failure {
            let isCardError = failure.code == .cardDeclined || failure.code == .authenticationFailed
            throw APIError(
                status: .paymentRequired, kind: isCardError ? .card : .api, code: failure.code.rawValue,
                message: failure.payerMessage, declineCode: failure.declineCode?.rawValue, intent: intent)
        }
        return APIResponse.json(intent)
    }

    static func newIntent(_ body: RequestBody) throws(APIError) -> NewPaymentIntent {
        let minorUnits = try body.integer("amount", required: true) ?? 0
        guard minorUnits > 0 else { throw APIError.invalid("parameter_invalid", "amount must be a positive integer in minor units (1000 = 10.00 USD)", param: "amount") }
        let code = try body.string("currency", required: true) ?? ""
        guard code.count == 3, code == code.uppercased() else {
            throw APIError.invalid("parameter_invalid", "currency must be an upper-case ISO 4217 code such as USD", param: "currency")
        }
        let currency: Currency
        do {
            currency = try Currency(code: code)
        } catch {
            throw APIError.invalid("parameter_invalid", error.message, param: "currency")
        }
        var capture = CaptureMethod.automatic
        if let text = try body.string("capture_method") {
            guard let method = CaptureMethod(rawValue: text) else {
                throw APIError.invalid("parameter_invalid", "capture_method must be automatic or manual", param: "capture_method")
            }
            capture = method
        }
        do {
            return try NewPaymentIntent(
                amount: Amount(minorUnits: minorUnits, currency: currency), captureMethod: capture,
                orderReference: try body.string("order_reference"), metadata: try body.newMetadata())
        } catch let error as PaymentInputError {
            throw APIError.invalid(error.code, error.message, param: error.field)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.invalid("parameter_invalid", "the payment intent's parameters are not valid")
        }
    }

    /// `payment_method: {type: "card", number, exp_month, exp_year, holder_name}`. Messages
    /// never repeat the number.
    static func card(_ body: RequestBody) throws(APIError) -> PaymentMethodData {
        guard let method = try body.object(
            "payment_method", allowed: ["type", "number", "exp_month", "exp_year", "holder_name"], required: true)
        else { throw RequestBody.missing("payment_method") }
        let type = try method.string("type", required: true)
        guard type == "card" else {
            throw APIError.invalid("parameter_invalid", "payment_method[type] must be card or apple_pay", param: "payment_method[type]")
        }
        guard let numberText = try? method.string("number", required: true) else {
            throw APIError.invalid("parameter_missing", "payment_method[number] is required and must be a string", param: "payment_method[number]")
        }
        let number: CardNumber
        do {
            number = try CardNumber(numberText)
        } catch {
            throw APIError.invalid("invalid_number", "payment_method[number] is not a valid card number", param: "payment_method[number]")
        }
        let month = try method.integer("exp_month")
        let year = try method.integer("exp_year")
        var expiry: CardExpiry?
        switch (month, year) {
        case (nil, nil): break
        case (let month?, let year?):
            do {
                expiry = try CardExpiry(month: Int(month), year: Int(year))
            } catch {
                throw APIError.invalid("invalid_expiry", "payment_method[exp_month]/[exp_year]: \(error.message)", param: "payment_method[exp_month]")
            }
        default:
            throw APIError.invalid("parameter_missing", "give both payment_method[exp_month] and payment_method[exp_year], or neither", param: "payment_method[exp_year]")
        }
        return .card(number: number, expiry: expiry, holderName: try method.string("holder_name"))
    }

    /// The reasons a merchant may give for a cancel (the others are the machine's own).
    static let merchantCancellationReasons: [CancellationReason] = [.requestedByCustomer, .duplicate, .fraudulent, .abandoned]

    static func cancellationReason(_ body: RequestBody) throws(APIError) -> CancellationReason {
        guard let text = try body.string("reason") else { return .requestedByCustomer }
        let allowed = merchantCancellationReasons
        guard let reason = CancellationReason(rawValue: text), allowed.contains(reason) else {
            throw APIError.invalid("parameter_invalid", "reason must be one of \(allowed.map(\.rawValue).joined(separator: ", "))", param: "reason")
        }
        return reason
    }

    static func includesEvents(_ context: RequestContext) throws(APIError) -> Bool {
        var events = false
        for item in context.queryItems {
            guard item.name == "include" || item.name == "include[]" else {
                throw APIError.invalid("parameter_unknown", "unknown query parameter \(JSONWriter.quoted(SensitiveDigits.redacted(item.name)))", param: item.name)
            }
            guard item.value == "events" else {
                throw APIError.invalid("parameter_invalid", "include takes events", param: "include")
            }
            events = true
        }
        return events
    }
}

/// `limit`, `starting_after` and `ending_before`, checked the same way on every list route.
struct ListPaging {
    var limit = 10
    var startingAfter: String?
    var endingBefore: String?

    /// The longest cursor: an object id is far shorter.
    static let maximumCursorLength = 255

    /// Takes `item` when it is a paging parameter (and checks it); false for any other.
    mutating func take(_ item: QueryItem) throws(APIError) -> Bool {
        switch item.name {
        case "limit":
            guard let value = Int(item.value), (1...100).contains(value) else {
                throw APIError.invalid("parameter_invalid", "limit must be an integer from 1 to 100", param: "limit")
            }
            limit = value
        case "starting_after": startingAfter = try Self.cursor(item)
        case "ending_before": endingBefore = try Self.cursor(item)
        default: return false
        }
        return true
    }

    /// After every item: the two cursors exclude each other.
    func finished() throws(APIError) -> ListPaging {
        if startingAfter != nil && endingBefore != nil {
            throw APIError.invalid("parameter_invalid", "give starting_after or ending_before, not both", param: "ending_before")
        }
        return self
    }

    private static func cursor(_ item: QueryItem) throws(APIError) -> String {
        guard (1...maximumCursorLength).contains(item.value.count) else {
            throw APIError.invalid("parameter_invalid", "\(item.name) must be an object id of 1 to \(maximumCursorLength) characters", param: item.name)
        }
        return item.value
    }
}

/// `GET /v1/payment_intents?limit&starting_after&ending_before&status&metadata[key]=value`.
struct ListQuery {
    var paging = ListPaging()
    var status: PaymentStatus?
    var limit: Int { paging.limit }
    var startingAfter: String? { paging.startingAfter }
    var endingBefore: String? { paging.endingBefore }
    /// `metadata[key]=value` pairs: only intents whose metadata holds every one.
    var metadata: [String: String] = [:]

    init(_ context: RequestContext) throws(APIError) {
        for item in context.queryItems where try !paging.take(item) {
            switch item.name {
            case "status":
                guard let value = PaymentStatus(rawValue: item.value) else {
                    throw APIError.invalid("parameter_invalid", "status must be one of \(PaymentStatus.allCases.map(\.rawValue).joined(separator: ", "))", param: "status")
                }
                status = value
            // Byte by byte: a key ending in a combining mark would make "]" part of its
            // character, and String's hasSuffix would not see it.
            case let name where name.utf8.starts(with: "metadata[".utf8) && name.utf8.last == UInt8(ascii: "]"):
                let key = String(decoding: name.utf8.dropFirst("metadata[".utf8.count).dropLast(), as: UTF8.self)
                guard (1...Metadata.maximumKeyLength).contains(key.unicodeScalars.count) else {
                    throw APIError.invalid(
                        "parameter_invalid", "a metadata filter is metadata[key]=value with a key of 1 to \(Metadata.maximumKeyLength) characters",
                        param: "metadata")
                }
                guard metadata[key] == nil else {
                    throw APIError.invalid("parameter_invalid", "give each metadata key once: \(name) appears twice", param: name)
                }
                metadata[key] = item.value
            default:
                throw APIError.invalid("parameter_unknown", "unknown query parameter \(JSONWriter.quoted(SensitiveDigits.redacted(item.name)))", param: item.name)
            }
        }
        paging = try paging.finished()
    }
}
