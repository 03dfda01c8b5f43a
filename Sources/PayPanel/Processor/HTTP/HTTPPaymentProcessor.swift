import Foundation
import Synchronization

/// A `PaymentProcessor` that talks to a Stripe-compatible PaymentIntents API over HTTP, such as
/// `paypanel processor serve` (docs/mock-processor.md). The attempt id is the `Idempotency-Key`
/// of the authorization and is kept in `metadata[attempt_id]`, which is how an unknown outcome
/// is looked up (search).
///
/// The network, mapped faithfully:
/// - nothing sent (name lookup failed, connection refused) → `.notProcessed`: safe to retry;
/// - sent, then a timeout, a reset or a close before the answer, or any 5xx → `.unknown`:
///   reconcile with `lookup`;
/// - 429 and 503 → retried after `Retry-After` while the call's timeout allows, then
///   `.notProcessed`;
/// - 402 `card_error` → `.declined` with Stripe's `decline_code`; 400 `idempotency_error` →
///   `.declined(.idempotencyKeyReused)`; other 400s → `.declined(.invalidRequest)`;
///   409 (the same key still in flight) and 408 → `.unknown`; a 4xx that is not the
///   processor's JSON error (a proxy, a wrong URL), or a 404 naming no missing object
///   (Stripe's "Unrecognized request URL"), → `.notProcessed`;
/// - a capture, void, refund or challenge completion first finds the attempt's intent (a
///   search, unless this process learnt it): a search the processor cannot answer is
///   `.notProcessed` (the operation was not sent), never the decline `authorization_not_found`,
///   which is kept for a processor that answered it has no such intent.
public struct HTTPPaymentProcessor: PaymentProcessor {
    let client: ProcessorHTTPClient
    let secretKey: String
    /// Attempt id → PaymentIntent id, learnt from answers; a miss is filled by a search.
    private let intents = IntentDirectory()

    /// The longest `Retry-After` honoured, so a hostile or broken header cannot park a call.
    static let maximumRetryAfter: Duration = .seconds(30)

    /// A processor at `endpoint`, authenticating with `secretKey` (`sk_test_…` for the mock).
    public init(endpoint: ProcessorEndpoint, secretKey: String) {
        client = ProcessorHTTPClient(endpoint: endpoint)
        self.secretKey = secretKey
    }

    public var endpoint: ProcessorEndpoint { client.endpoint }

    // MARK: - PaymentProcessor

    public func authorize(_ request: AuthorizationRequest, timeout: Duration) async -> ProcessorOutcome {
        let deadline = ContinuousClock.now + timeout
        var form: [(String, String)] = [
            ("amount", String(request.amount.minorUnits)), ("currency", request.amount.currency.code.lowercased()),
            ("confirm", "true"), ("capture_method", "manual"), ("metadata[attempt_id]", request.reference),
            ("payment_method_data[type]", "card"), ("payment_method_data[card][number]", request.paymentMethod.cardNumber.digits),
        ]
        if let expiry = request.paymentMethod.expiry {
            form += [("payment_method_data[card][exp_month]", String(expiry.month)), ("payment_method_data[card][exp_year]", String(expiry.year))]
        }
        if let holder = request.paymentMethod.holderName { form.append(("payment_method_data[billing_details][name]", holder)) }
        if case .networkToken(_, _, let cryptogram, let eci, _) = request.paymentMethod {
            form.append(("payment_method_data[card][network_token][cryptogram]", cryptogram.value))
            if let eci { form.append(("payment_method_data[card][network_token][eci]", eci)) }
            if let generated = cryptogram.generatedAt {
                form.append(("payment_method_data[card][network_token][cryptogram_created]", String(generated.unixSeconds)))
            }
        }
        var headers = [("Idempotency-Key", request.reference)]
        if let scenario = request.scenario, !scenario.isEmpty { headers.append(("Mock-Scenario", scenario)) }
        let answer = await call("POST", "/v1/payment_intents", form: form, headers: headers, deadline: deadline)
        return authorizationOutcome(answer, reference: request.reference)
    }

    public func completeChallenge(reference: String, passed: Bool, timeout: Duration) async -> ProcessorOutcome {
        let deadline = ContinuousClock.now + timeout
        let id: String
        switch await intentID(for: reference, deadline: deadline) {
        case .found(let found): id = found
        case .answer(let outcome): return outcome
        }
        let answer = await call("POST", "/_mock/3ds/\(id)", form: [("outcome", passed ? "pass" : "fail")], deadline: deadline)
        return authorizationOutcome(answer, reference: reference)
    }

    public func capture(_ request: CaptureRequest, timeout: Duration) async -> ProcessorOutcome {
        let deadline = ContinuousClock.now + timeout
        let id: String
        switch await intentID(for: request.reference, deadline: deadline) {
        case .found(let found): id = found
        case .answer(let outcome): return outcome
        }
        let answer = await call(
            "POST", "/v1/payment_intents/\(id)/capture", form: [("amount_to_capture", String(request.amount.minorUnits))],
            headers: [("Idempotency-Key", "\(request.reference):capture:\(request.amount.minorUnits)")], deadline: deadline)
        return await settlementOutcome(answer, reference: request.reference, operation: .capture, deadline: deadline) { intent in
            intent["status"]?.stringValue == "succeeded" ? Self.approval(intent, amountKey: "amount_received") : nil
        }
    }

    public func void(reference: String, timeout: Duration) async -> ProcessorOutcome {
        let deadline = ContinuousClock.now + timeout
        let id: String
        switch await intentID(for: reference, deadline: deadline) {
        case .found(let found): id = found
        case .answer(let outcome): return outcome
        }
        let answer = await call("POST", "/v1/payment_intents/\(id)/cancel", form: [], headers: [("Idempotency-Key", "\(reference):void")], deadline: deadline)
        return await settlementOutcome(answer, reference: reference, operation: .void, deadline: deadline) { intent in
            intent["status"]?.stringValue == "canceled" ? Self.approval(intent, amountKey: "amount") : nil
        }
    }

    public func refund(_ request: RefundRequest, timeout: Duration) async -> ProcessorOutcome {
        let deadline = ContinuousClock.now + timeout
        let id: String
        switch await intentID(for: request.reference, deadline: deadline) {
        case .found(let found): id = found
        case .answer(let outcome): return outcome
        }
        let answer = await call(
            "POST", "/v1/refunds",
            form: [("payment_intent", id), ("amount", String(request.amount.minorUnits)), ("metadata[refund_reference]", request.refundReference)],
            headers: [("Idempotency-Key", request.refundReference)], deadline: deadline)
        switch answer {
        case .object(let refund):
            intents.remember(refund: request.refundReference, intent: id)
            return Self.refundOutcome(refund)
        case .failure(let outcome): return outcome
        case .stripeError(let status, let error):
            if error["code"]?.stringValue == "amount_too_large" || error["code"]?.stringValue == "charge_already_refunded" { return .declined(.amountTooLarge) }
            if error["code"]?.stringValue == "payment_intent_unexpected_state" { return .declined(.notCaptured) }
            return Self.requestOutcome(status: status, error: error)
        }
    }

    public func lookup(reference: String, operation: ProcessorOperation, timeout: Duration) async -> LookupResult {
        let deadline = ContinuousClock.now + timeout
        if operation == .refund { return await lookupRefund(reference, deadline: deadline) }
        let found = await search(attemptID: reference, deadline: deadline)
        guard case .found(let intent) = found else {
            if case .unavailable(let reason) = found { return .unavailable(reason: reason) }
            return .notFound
        }
        let status = intent["status"]?.stringValue ?? ""
        let charged = intent["latest_charge"]?.stringValue != nil
        switch operation {
        case .authorize:
            switch status {
            case "requires_capture": return .found(Self.approval(intent, amountKey: "amount_capturable"))
            // Authorized, then captured or released: the authorization itself was approved.
            case "succeeded": return .found(Self.approval(intent, amountKey: "amount"))
            case "canceled" where charged: return .found(Self.approval(intent, amountKey: "amount"))
            case "requires_action": return .found(.challengeRequired)
            case "processing": return .unavailable(reason: "the processor is still processing the authorization")
            default:
                if let error = intent["last_payment_error"], case .object = error { return .found(.declined(Self.declineCode(error))) }
                return .notFound
            }
        case .capture:
            return status == "succeeded" ? .found(Self.approval(intent, amountKey: "amount_received")) : .notFound
        case .void:
            return status == "canceled" && charged ? .found(Self.approval(intent, amountKey: "amount")) : .notFound
        case .refund:
            return .notFound
        }
    }

    // MARK: - Calls

    enum Answer {
        /// 2xx with a JSON object.
        case object(JSONValue)
        /// A Stripe error envelope (`error` member), with its status.
        case stripeError(status: Int, error: JSONValue)
        /// No usable answer: what it means for the operation.
        case failure(ProcessorOutcome)
    }

    /// One API call, retrying 429 and 503 after `Retry-After` while the deadline allows.
    func call(_ method: String, _ path: String, form: [(String, String)], headers: [(String, String)] = [], deadline: ContinuousClock.Instant) async -> Answer {
        let body = FormEncoding.encode(form)
        var allHeaders = [("Authorization", "Bearer \(secretKey)")] + headers
        if method != "GET" { allHeaders.append(("Content-Type", "application/x-www-form-urlencoded")) }
        while true {
            let result = await client.send(method: method, path: path, headers: allHeaders, body: method == "GET" ? [] : body, deadline: deadline)
            switch result {
            case .notSent(let reason):
                return .failure(.notProcessed(reason: "the processor was not reached, nothing was sent: \(reason)"))
            case .noAnswer(let reason):
                return .failure(.unknown(reason: reason + ": look the operation up"))
            case .response(let response):
                if response.status == 429 || response.status == 503 {
                    let wait = Self.retryAfter(response.header("Retry-After"))
                    guard ContinuousClock.now + wait < deadline else {
                        return .failure(.notProcessed(reason: "the processor answered HTTP \(response.status) (not processed) and asked to retry after \(wait), past this call's timeout"))
                    }
                    try? await Task.sleep(for: wait)
                    continue
                }
                if response.status >= 500 {
                    return .failure(.unknown(reason: "the processor answered HTTP \(response.status): the outcome is unknown; look the operation up"))
                }
                if response.status == 408 {
                    // A timeout of the request on the way (a proxy's, or the server's): it may
                    // have been processed.
                    return .failure(.unknown(reason: "the processor answered HTTP 408 (request timeout): the outcome is unknown; look the operation up"))
                }
                guard let json = try? JSONParser().parse(response.body), case .object = json else {
                    if (200..<300).contains(response.status) {
                        return .failure(.unknown(reason: "the processor answered HTTP \(response.status) with a body that is not a JSON object: look the operation up"))
                    }
                    // Not the processor's API speaking (its errors are JSON): a proxy, a wrong
                    // URL. Nothing says the card or the payment was refused.
                    return .failure(.notProcessed(
                        reason: "HTTP \(response.status) without the processor's JSON error (a proxy or a wrong --processor URL?): not processed"))
                }
                if (200..<300).contains(response.status) { return .object(json) }
                if response.status == 404, json["error"]?["code"]?.stringValue != "resource_missing" {
                    // A 404 that names no missing object is "no such route" (Stripe's
                    // "Unrecognized request URL"): a wrong --processor URL, never a refusal.
                    return .failure(.notProcessed(
                        reason: "the processor has no route for this request (HTTP 404 without resource_missing: a wrong --processor URL?): not processed"))
                }
                if response.status == 409 {
                    return .failure(.unknown(reason: "the processor is still working on a request with the same idempotency key (HTTP 409): look the operation up"))
                }
                if response.status == 401 || response.status == 403 {
                    return .failure(.notProcessed(reason: "the processor refused the secret key (HTTP \(response.status)): check the processor key"))
                }
                return .stripeError(status: response.status, error: json["error"] ?? .null)
            }
        }
    }

    /// Seconds from `Retry-After` (1 when missing or unreadable; at most 30).
    static func retryAfter(_ header: String?) -> Duration {
        guard let header, let seconds = Int(header.trimmingWhitespace()), seconds >= 0 else { return .seconds(1) }
        return min(.seconds(seconds), maximumRetryAfter)
    }

    // MARK: - Mapping answers

    private func authorizationOutcome(_ answer: Answer, reference: String) -> ProcessorOutcome {
        switch answer {
        case .object(let intent):
            remember(intent, reference: reference)
            return Self.intentOutcome(intent)
        case .failure(let outcome):
            return outcome
        case .stripeError(let status, let error):
            if let intent = error["payment_intent"], case .object = intent { remember(intent, reference: reference) }
            if status == 402 { return .declined(Self.declineCode(error)) }
            return Self.requestOutcome(status: status, error: error)
        }
    }

    private func settlementOutcome(
        _ answer: Answer, reference: String, operation: ProcessorOperation, deadline: ContinuousClock.Instant,
        approvedIf approved: (JSONValue) -> ProcessorOutcome?
    ) async -> ProcessorOutcome {
        switch answer {
        case .object(let intent):
            return approved(intent) ?? .unknown(reason: "the processor answered with status \(intent["status"]?.stringValue ?? "?"): look the operation up")
        case .failure(let outcome):
            return outcome
        case .stripeError(let status, let error):
            if error["code"]?.stringValue == "payment_intent_unexpected_state" {
                // A retry of a capture or void that went through earlier: the intent says so.
                let timeLeft = ContinuousClock.now.duration(to: deadline)
                if case .found(let outcome) = await lookup(reference: reference, operation: operation, timeout: max(timeLeft, .milliseconds(1))) {
                    return outcome
                }
                return .declined(operation == .capture ? .authorizationNotApproved : .alreadyCaptured)
            }
            if error["code"]?.stringValue == "charge_expired_for_capture" { return .declined(.authorizationExpired) }
            if status == 402 { return .declined(DeclineCode(error["decline_code"]?.stringValue ?? (operation == .capture ? "capture_failed" : "void_failed"))) }
            return Self.requestOutcome(status: status, error: error)
        }
    }

    static func intentOutcome(_ intent: JSONValue) -> ProcessorOutcome {
        switch intent["status"]?.stringValue {
        case "requires_capture": return approval(intent, amountKey: "amount_capturable")
        case "succeeded": return approval(intent, amountKey: "amount")
        case "requires_action": return .challengeRequired
        case "requires_payment_method":
            if let error = intent["last_payment_error"], case .object = error { return .declined(declineCode(error)) }
            return .declined(.genericDecline)
        default:
            return .unknown(reason: "the processor answered with status \(intent["status"]?.stringValue ?? "?"): look the operation up")
        }
    }

    static func approval(_ intent: JSONValue, amountKey: String) -> ProcessorOutcome {
        guard let id = intent["id"]?.stringValue, let minor = intent[amountKey]?.int64Value,
            let code = intent["currency"]?.stringValue, let currency = try? Currency(code: code.uppercased())
        else { return .unknown(reason: "the processor's answer lacks id, \(amountKey) or currency: look the operation up") }
        return .approved(ProcessorApproval(amount: Amount(minorUnits: minor, currency: currency), processorID: id))
    }

    /// Stripe's `decline_code`, else its `code` (`expired_card`, `processing_error`, …).
    static func declineCode(_ error: JSONValue) -> DeclineCode {
        if let decline = error["decline_code"]?.stringValue, !decline.isEmpty { return DeclineCode(decline) }
        switch error["code"]?.stringValue {
        case "expired_card": return .expiredCard
        case "processing_error": return .processingError
        case "payment_intent_authentication_failure": return .authenticationFailed
        default: return .genericDecline
        }
    }

    static func requestOutcome(status: Int, error: JSONValue) -> ProcessorOutcome {
        if error["type"]?.stringValue == "idempotency_error" { return .declined(.idempotencyKeyReused) }
        if status == 404 { return .declined(.authorizationNotFound) }
        return .declined(.invalidRequest)
    }

    static func refundOutcome(_ refund: JSONValue) -> ProcessorOutcome {
        switch refund["status"]?.stringValue {
        case "succeeded":
            guard let id = refund["id"]?.stringValue, let minor = refund["amount"]?.int64Value,
                let code = refund["currency"]?.stringValue, let currency = try? Currency(code: code.uppercased())
            else { return .unknown(reason: "the processor's refund lacks id, amount or currency: look it up") }
            return .approved(ProcessorApproval(amount: Amount(minorUnits: minor, currency: currency), processorID: id))
        case "pending": return .pending
        case "failed", "canceled": return .declined(.refundFailed)
        default: return .unknown(reason: "the processor answered with refund status \(refund["status"]?.stringValue ?? "?"): look it up")
        }
    }

    // MARK: - Finding intents and refunds

    private func remember(_ intent: JSONValue, reference: String) {
        if let id = intent["id"]?.stringValue { intents.remember(attempt: reference, intent: id) }
    }

    /// The processor's intent for an attempt, or the outcome of a call that needed one.
    enum IntentResolution {
        case found(String)
        /// No intent to act on: the processor has none for the attempt (a decline,
        /// `authorization_not_found`), or could not be asked (`notProcessed`: the operation
        /// itself was never sent, so it is safe to send again — never a decline).
        case answer(ProcessorOutcome)
    }

    private func intentID(for reference: String, deadline: ContinuousClock.Instant) async -> IntentResolution {
        if let id = intents.intent(forAttempt: reference) { return .found(id) }
        switch await search(attemptID: reference, deadline: deadline) {
        case .found(let intent):
            guard let id = intent["id"]?.stringValue else {
                return .answer(.notProcessed(reason: "the processor's search answered an intent without an id; nothing was sent"))
            }
            intents.remember(attempt: reference, intent: id)
            return .found(id)
        case .notFound:
            return .answer(.declined(.authorizationNotFound))
        case .unavailable(let reason):
            return .answer(.notProcessed(reason: "the processor could not be asked for the attempt's intent, so nothing was sent: \(reason)"))
        }
    }

    enum SearchResult {
        case found(JSONValue)
        case notFound
        case unavailable(String)
    }

    /// `GET /v1/payment_intents/search?query=metadata['attempt_id']:'…'`.
    func search(attemptID: String, deadline: ContinuousClock.Instant) async -> SearchResult {
        let quoted = attemptID.replacingOccurrences(of: "'", with: "")
        let query = String(decoding: FormEncoding.encode([("query", "metadata['attempt_id']:'\(quoted)'"), ("limit", "2")]), as: UTF8.self)
        switch await call("GET", "/v1/payment_intents/search?" + query, form: [], deadline: deadline) {
        case .object(let result):
            guard let first = result["data"]?.arrayValue?.first else { return .notFound }
            remember(first, reference: attemptID)
            return .found(first)
        case .failure(let outcome):
            if case .notProcessed(let reason) = outcome { return .unavailable(reason) }
            if case .unknown(let reason) = outcome { return .unavailable(reason) }
            return .unavailable("the search was refused")
        case .stripeError(_, let error):
            return .unavailable("the search was refused: \(error["message"]?.stringValue ?? "no reason given")")
        }
    }

    /// A refund by its reference (`metadata[refund_reference]`), among its intent's refunds.
    private func lookupRefund(_ refundReference: String, deadline: ContinuousClock.Instant) async -> LookupResult {
        var path = "/v1/refunds?limit=100"
        if let intent = intents.intent(forRefund: refundReference) { path += "&payment_intent=" + FormEncoding.escape(intent) }
        var after: String?
        for _ in 0..<20 {
            let page = path + (after.map { "&starting_after=" + FormEncoding.escape($0) } ?? "")
            switch await call("GET", page, form: [], deadline: deadline) {
            case .object(let list):
                let data = list["data"]?.arrayValue ?? []
                if let refund = data.first(where: { $0["metadata"]?["refund_reference"]?.stringValue == refundReference }) {
                    return .found(Self.refundOutcome(refund))
                }
                guard list["has_more"]?.boolValue == true, let last = data.last?["id"]?.stringValue else { return .notFound }
                after = last
            case .failure(let outcome):
                if case .unknown(let reason) = outcome { return .unavailable(reason: reason) }
                if case .notProcessed(let reason) = outcome { return .unavailable(reason: reason) }
                return .unavailable(reason: "the refund list was refused")
            case .stripeError(_, let error):
                return .unavailable(reason: "the refund list was refused: \(error["message"]?.stringValue ?? "no reason given")")
            }
        }
        return .unavailable(reason: "more than 2,000 refunds to look through")
    }
}

/// Which PaymentIntent and refund belong to which attempt and refund reference, as learnt
/// from answers. A cache: when empty (after a restart) a search fills it.
final class IntentDirectory: Sendable {
    private let state = Mutex<(attempts: [String: String], refunds: [String: String])>(([:], [:]))
    /// Entries at most; beyond, the cache is cleared (searches refill it).
    static let capacity = 100_000

    func remember(attempt: String, intent: String) {
        state.withLock { state in
            if state.attempts.count >= Self.capacity { state.attempts.removeAll() }
            state.attempts[attempt] = intent
        }
    }

    func remember(refund: String, intent: String) {
        state.withLock { state in
            if state.refunds.count >= Self.capacity { state.refunds.removeAll() }
            state.refunds[refund] = intent
        }
    }

    func intent(forAttempt attempt: String) -> String? { state.withLock { $0.attempts[attempt] } }
    func intent(forRefund refund: String) -> String? { state.withLock { $0.refunds[refund] } }
}
