import Foundation
import PayPanel
import PayPanelHTTP

/// An error in Stripe's envelope: `{"error": {"type", "code", "decline_code", "message",
/// "param", …}}` with Stripe's statuses (400 invalid_request_error, 401, 402 card_error, 404
/// resource_missing, 409, 429, 500 api_error), so SDKs raise their usual exception types.
public struct StripeError: Error, HTTPResponseError, Sendable {
    public let status: HTTPStatus
    public let type: String
    public let code: String?
    public let declineCode: String?
    public let message: String
    public let param: String?
    /// Extra members of the error object (`payment_intent` on a card error).
    public var extra: [(String, JSONValue)] = []
    /// Extra response headers (`Retry-After`).
    public var headers: HTTPHeaders = [:]

    public init(status: HTTPStatus, type: String, code: String? = nil, declineCode: String? = nil, message: String, param: String? = nil) {
        self.status = status
        self.type = type
        self.code = code
        self.declineCode = declineCode
        self.message = message
        self.param = param
    }

    public static func invalidRequest(_ message: String, param: String? = nil, code: String? = nil) -> StripeError {
        StripeError(status: .badRequest, type: "invalid_request_error", code: code ?? (param == nil ? nil : "parameter_invalid"), message: message, param: param)
    }

    /// The router's refusal in Stripe's terms. No route for the path, or none for this method
    /// on it: Stripe answers both 404 "Unrecognized request URL (METHOD: path)" (an
    /// `InvalidRequestError` in its SDKs), so the mock does too, rather than HTTP's 405. Any
    /// other status keeps its code and headers. The path is the client's own, shown with card
    /// numbers masked and cut to a readable length.
    init(routing error: HTTPError, _ context: RequestContext) {
        guard error.status == .notFound || error.status == .methodNotAllowed else {
            self.init(status: error.status, type: "invalid_request_error", message: error.reason)
            headers = error.headers
            return
        }
        let path = String(SensitiveDigits.redacted(context.path).prefix(200))
        self.init(
            status: .notFound, type: "invalid_request_error",
            message: "Unrecognized request URL (\(context.method.rawValue): \(path)): processor serve has no such route; docs/mock-processor.md lists the routes it serves")
    }

    public static func missing(_ param: String) -> StripeError {
        StripeError(status: .badRequest, type: "invalid_request_error", code: "parameter_missing", message: "Missing required param: \(param).", param: param)
    }

    public static func resourceMissing(_ kind: String, _ id: String, param: String = "id") -> StripeError {
        StripeError(
            status: .notFound, type: "invalid_request_error", code: "resource_missing",
            message: "No such \(kind): '\(JSONWriter.quoted(id, limit: 80).dropFirst().dropLast())'", param: param)
    }

    public static func unexpectedState(_ message: String, param: String? = nil) -> StripeError {
        StripeError(status: .badRequest, type: "invalid_request_error", code: "payment_intent_unexpected_state", message: message, param: param)
    }

    public static func apiError(_ message: String) -> StripeError {
        StripeError(status: .internalServerError, type: "api_error", message: message)
    }

    init(_ error: FormError) {
        self = .invalidRequest(error.message, param: error.param)
    }

    /// `https://stripe.com/docs/error-codes/resource-missing` for `resource_missing`.
    static func docURL(code: String) -> String {
        "https://stripe.com/docs/error-codes/" + code.replacingOccurrences(of: "_", with: "-")
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("type", .string(type))]
        if let code { members.append(("code", .string(code))) }
        if let declineCode { members.append(("decline_code", .string(declineCode))) }
        // Stripe links every coded error to its page; the SDKs expose it as `error.doc_url`.
        if let code { members.append(("doc_url", .string(Self.docURL(code: code)))) }
        members.append(("message", .string(message)))
        if let param { members.append(("param", .string(param))) }
        members += extra
        return .orderedObject([("error", .orderedObject(members))])
    }

    public func response(for context: RequestContext) -> HTTPResponse {
        var response = HTTPResponse.json(Array(JSONWriter.string(json).utf8), status: status, headers: headers)
        response.headers.replaceOrAdd(name: "Request-Id", value: "req_" + context.requestID)
        return response
    }
}
