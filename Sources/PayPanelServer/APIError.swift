import Foundation
import PayPanel
import PayPanelHTTP

/// An error of the HTTP API as the client sees it: a status and the one envelope
/// `{"error": {"type","code","decline_code"?,"message","param"?,"request_id", "payment_intent"?}}`.
/// Every library error becomes one of these in `APIError.from(_:)`, once, at the edge.
struct APIError: Error, Sendable {
    enum Kind: String, Sendable {
        case invalidRequest = "invalid_request_error"
        case authentication = "authentication_error"
        case card = "card_error"
        case idempotency = "idempotency_error"
        case api = "api_error"
    }

    let status: HTTPStatus
    let kind: Kind
    let code: String
    let message: String
    var param: String? = nil
    var declineCode: String? = nil
    /// The intent, for a decline (402): the client sees it back in `requires_payment_method`.
    var intent: JSONValue? = nil
    var headers: HTTPHeaders = [:]

    /// True for an answer about this moment rather than about the request: the server could not
    /// finish it (5xx, the database busy or full), the client is told to slow down (429), or it
    /// ran into another request still working on the same object (the 409s of
    /// `transientConflicts`). An idempotency key never keeps such an answer: the retry must get
    /// the real one.
    var isTransient: Bool {
        status.code >= 500 || status.code == 429 || (status == .conflict && Self.transientConflicts.contains(code))
    }

    /// The 409 codes that say "not now" rather than "not this": the intent's processor call is
    /// still in flight, the object moved under the request, the checkout is being paid, the
    /// key is in use.
    static let transientConflicts: Set<String> = [
        "payment_intent_operation_in_flight", "version_conflict", "payment_in_progress", "idempotency_key_in_use",
    ]

    /// 400 `invalid_request_error` naming the offending parameter.
    static func invalid(_ code: String, _ message: String, param: String? = nil) -> APIError {
        APIError(status: .badRequest, kind: .invalidRequest, code: code, message: message, param: param)
    }

    /// 404 for an unknown object.
    static func missing(_ what: String, _ id: String) -> APIError {
        APIError(status: .notFound, kind: .invalidRequest, code: "resource_missing",
                 message: "no such \(what): \(JSONWriter.quoted(SensitiveDigits.redacted(id)))", param: "id")
    }

    /// The envelope with the request's id.
    func response(requestID: String) -> HTTPResponse {
        var members: [(String, JSONValue)] = [("type", .string(kind.rawValue)), ("code", .string(code))]
        if let declineCode { members.append(("decline_code", .string(declineCode))) }
        members.append(("message", .string(SensitiveDigits.redacted(message))))
        // A param can echo a name the client sent (an unknown parameter, a metadata key).
        if let param { members.append(("param", .string(SensitiveDigits.redacted(param)))) }
        if let intent { members.append(("payment_intent", intent)) }
        members.append(("request_id", .string(requestID)))
        return APIResponse.json(.orderedObject([("error", .orderedObject(members))]), status: status, headers: headers)
    }

    /// The API error for anything a handler or the library threw. Unexpected errors are a bare
    /// 500 whose message names nothing internal: their description may hold data.
    static func from(_ error: any Error) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as JSONParseError:
            return invalid("invalid_json", "the request body is not valid JSON: \(error.message)")
        case let error as PaymentRejection:
            return from(rejection: error)
        case let error as PaymentStoreError:
            return from(storeError: error)
        case let error as IdempotencyError:
            return from(idempotency: error)
        case let error as CheckoutError:
            return from(checkout: error)
        case let error as PushError:
            return error.kind == .deviceNotFound
                ? APIError(status: .notFound, kind: .invalidRequest, code: error.code, message: error.message, param: "device")
                : invalid(error.code, error.message, param: error.field)
        case let error as PaymentInputError:
            return invalid(error.code, error.message, param: error.field)
        case let error as CardNumberInTextError:
            return invalid(error.code, error.message, param: error.field)
        case let error as MetadataError:
            return invalid(error.code, error.message, param: error.field)
        case let error as WebhookStoreError:
            if error.code.hasSuffix("_not_found") {
                return APIError(status: .notFound, kind: .invalidRequest, code: "resource_missing", message: error.message, param: "id")
            }
            if error.code.hasPrefix("invalid_") { return invalid(error.code, error.message, param: error.field) }
            return APIError(status: .internalServerError, kind: .api, code: error.code, message: error.message)
        case let error as MoneyError:
            return invalid(error.code, error.message)
        case let error as HTTPError:
            let code = error.status == .notFound ? "resource_missing"
                : error.status == .methodNotAllowed ? "method_not_allowed" : "invalid_request"
            return APIError(status: error.status, kind: .invalidRequest, code: code, message: error.reason, headers: error.headers)
        case let error as any StoreFaultError where error.storeFault != nil:
            // The store cannot take writes now (disk full, read-only, busy, files gone): the
            // server's state, not the request's; retrying later may succeed.
            let fault = error.storeFault ?? .ioError
            return APIError(status: .serviceUnavailable, kind: .api, code: fault.code, message: fault.clientMessage,
                            headers: ["Retry-After": String(fault.retryAfterSeconds)])
        case let error as any RetryableStoreError where error.isRetryableConflict:
            return APIError(status: .serviceUnavailable, kind: .api, code: "database_busy",
                            message: "the payments database is busy: retry the request (with the same Idempotency-Key)",
                            headers: ["Retry-After": "1"])
        default:
            return APIError(status: .internalServerError, kind: .api, code: "internal_error",
                            message: "the server could not complete the request: quote the request id to support")
        }
    }

    private static func from(rejection: PaymentRejection) -> APIError {
        switch rejection.reason {
        case .unknownAttempt(let id): return missing("attempt", id)
        case .unknownRefund(let id): return missing("refund", id)
        // The intent's state refuses a well-formed request: 409, as for any other conflict.
        case .terminal, .notAllowed, .operationInFlight, .timerNotApplicable, .callNotInFlight, .unexpectedOutcome,
             .duplicateAttempt, .duplicateRefund, .refundNotPending, .invalidResolution, .resolutionContradictsProcessor,
             .attemptLimitReached:
            return APIError(status: .conflict, kind: .invalidRequest, code: rejection.code, message: rejection.message)
        // Stripe answers these with 400 and the amount as the parameter; so does PayPanel.
        case .captureAmountInvalid, .refundAmountInvalid, .refundExceedsRemainder, .attemptAmountMismatch:
            return invalid(rejection.code, rejection.message, param: "amount")
        case .authorizationExpired:
            return invalid(rejection.code, rejection.message)
        }
    }

    private static func from(storeError: PaymentStoreError) -> APIError {
        switch storeError.reason {
        case .intentNotFound(let id): return missing("payment_intent", id)
        case .versionConflict: return APIError(status: .conflict, kind: .invalidRequest, code: storeError.code, message: storeError.message)
        case .tokenReplayed, .invalidTokenTransactionID: return invalid(storeError.code, storeError.message)
        case .invariantViolated, .corruptRow:
            return APIError(status: .internalServerError, kind: .api, code: storeError.code, message: storeError.message)
        }
    }

    private static func from(checkout error: CheckoutError) -> APIError {
        switch error.reason {
        case .notFound(let id): return missing("checkout", id)
        case .invalidParameters: return invalid(error.code, error.message, param: error.violations.first?.path)
        case .amountNotOffered: return invalid(error.code, error.message)
        case .notOpen, .versionConflict, .paymentInProgress, .noChallenge:
            return APIError(status: .conflict, kind: .invalidRequest, code: error.code, message: error.message)
        }
    }

    private static func from(idempotency: IdempotencyError) -> APIError {
        switch idempotency.reason {
        case .reused: return APIError(status: .badRequest, kind: .idempotency, code: "idempotency_key_reused", message: idempotency.message)
        case .inProgress: return APIError(status: .conflict, kind: .idempotency, code: "idempotency_key_in_use", message: idempotency.message)
        case .invalidKey: return APIError(status: .badRequest, kind: .idempotency, code: "invalid_idempotency_key", message: idempotency.message)
        case .unreadableResult:
            return APIError(status: .internalServerError, kind: .idempotency, code: idempotency.code, message: idempotency.message)
        }
    }
}

/// Building JSON responses.
enum APIResponse {
    static func json(_ value: JSONValue, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) -> HTTPResponse {
        .json(Array((JSONWriter.string(value) + "\n").utf8), status: status, headers: headers)
    }
}
