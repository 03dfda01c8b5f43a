import Foundation
import PayPanel
import PayPanelHTTP

/// A checkout created on a running `paypanel serve` with the merchant's secret key
/// (`POST /v1/checkouts`): what the device gets from it — the push payload to show, the client
/// secret to pay with — and how its payments capture.
public struct RemoteCheckout: Sendable {
    public let id: String
    /// Pays this checkout and nothing else (`POST /v1/checkouts/{id}/pay`); memory only.
    public let clientSecret: String
    public let captureMethod: CaptureMethod
    /// The APNs payload the server built (`push_payload`): banner and panel come from it.
    public let pushPayload: PushPayload
}

/// Why talking to the server did not work: unreachable, the key refused, or an answer that
/// is not the API's. Messages say where and what to do; they never hold a key or a secret.
public struct RemoteCheckoutError: PayPanelError, Equatable {
    public let code: String
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = SensitiveDigits.redacted(message)
    }
}

/// The calls of `paypanel checkout --server`, over PayPanel's one HTTP client (`HTTPClient`).
///
/// Why its socket path and not URLSession: on Linux URLSession is FoundationNetworking, which
/// needs libcurl at run time, a package PayPanel's setup does not install; the socket path is
/// bounded by one deadline per call and reads every answer's body (the API's errors are JSON
/// envelopes). It speaks plain http only (no TLS library is linked): a server on loopback or
/// a trusted network, as a demo needs.
public struct ServerConnection: Sendable {
    package let base: MediaLocation.WebURL
    let client = HTTPClient(maximumRedirects: 0)
    static let maximumAnswerBytes = 1 << 20

    /// `http://HOST:PORT` (a path after it is refused: the API lives at the root).
    public init(url text: String) throws(RemoteCheckoutError) {
        guard case .success(.web(let url)) = MediaLocation.parse(text) else {
            throw RemoteCheckoutError(code: "invalid_server_url", message: "\(JSONWriter.quoted(text)) is not an http URL: give the address paypanel serve printed, like http://127.0.0.1:8080")
        }
        guard !url.isSecure else {
            throw RemoteCheckoutError(code: "invalid_server_url", message: "\(url) uses https, which PayPanel's built-in HTTP client cannot speak (no TLS library is linked): use the server's http:// address")
        }
        guard url.target == "/" else {
            throw RemoteCheckoutError(code: "invalid_server_url", message: "\(url) has a path: give only the server's address, like http://127.0.0.1:8080")
        }
        base = url
    }

    /// `http://127.0.0.1:8080`, for messages.
    public var address: String { String(base.description.dropLast(base.target.count)) }

    /// What a call answered: the status, the JSON body, and the request id.
    public struct Answer: Sendable {
        public let status: Int
        public let json: JSONValue
        public let requestID: String?

        /// `error.code` of the envelope.
        public var errorCode: String? { json["error"]?["code"]?.stringValue }
        public var errorMessage: String { json["error"]?["message"]?.stringValue ?? "HTTP \(status)" }
    }

    /// One call; `bearer` is the secret key or the client secret. Blocking: run it off the
    /// cooperative pool (`ServerConnection.offThread`).
    public func call(
        _ method: String, _ path: String, json: JSONValue? = nil, bearer: String, idempotencyKey: String? = nil, timeout: Duration = .seconds(30)
    ) throws(RemoteCheckoutError) -> Answer {
        var url = base
        url.target = path
        var headers: [(name: String, value: String)] = [("Accept", "application/json"), ("Authorization", "Bearer \(bearer)")]
        if json != nil { headers.append(("Content-Type", "application/json")) }
        if let idempotencyKey { headers.append(("Idempotency-Key", idempotencyKey)) }
        let request = HTTPClientRequest(
            method, url, headers: headers, body: json.map { Array(JSONWriter.string($0, style: .compact).utf8) } ?? [])
        let reply: HTTPClientResponse
        switch client.send(request, maximumBodyBytes: Self.maximumAnswerBytes, deadline: .now.advanced(by: timeout)) {
        case .success(let answer):
            reply = answer
        case .failure(let error):
            let hint = error.kind == .unreachable || error.kind == .timedOut ? ": is paypanel serve running there? (start it with paypanel serve --test-root)" : ""
            let detail = error.kind == .timedOut
                ? "\(method) \(url) got no answer within \(HTTPClient.seconds(timeout)) s (\(error.message))" : error.message
            throw RemoteCheckoutError(code: "server_unreachable", message: "cannot reach the PayPanel server at \(address): \(detail)\(hint)")
        }
        let parsed = (try? JSONParser().parse(reply.body)) ?? .null
        if reply.status == 401 && bearer.hasPrefix("sk_") {
            throw RemoteCheckoutError(
                code: "invalid_api_key",
                message: "the server at \(address) refused the API key (401): pass the key 'paypanel serve' printed at its first start, or one from 'paypanel keys create', with --api-key or $PAYPANEL_API_KEY")
        }
        guard case .object = parsed else {
            throw RemoteCheckoutError(code: "server_answer_unreadable", message: "\(method) \(path) on \(address) answered HTTP \(reply.status) without a JSON object: is it a PayPanel server?")
        }
        return Answer(status: reply.status, json: parsed, requestID: reply.header("Request-Id"))
    }

    /// Creates a checkout (`POST /v1/checkouts`) with the merchant's secret key: `parameters`
    /// over the seed panel (`{}` is the seed's 5/10/20 USD).
    public func createCheckout(apiKey: String, parameters: JSONValue) throws(RemoteCheckoutError) -> RemoteCheckout {
        let answer = try call("POST", "/v1/checkouts", json: parameters, bearer: apiKey)
        guard answer.status == 200 else {
            throw RemoteCheckoutError(code: answer.errorCode ?? "checkout_not_created", message: "the server did not create the checkout (HTTP \(answer.status)): \(answer.errorMessage)")
        }
        let json = answer.json
        guard let id = json["id"]?.stringValue, let secret = json["client_secret"]?.stringValue, let payload = json["push_payload"] else {
            throw RemoteCheckoutError(code: "server_answer_unreadable", message: "the server's checkout has no id, client_secret or push_payload: is it a PayPanel server of the same version?")
        }
        let read = PushPayloadReader.read(data: Array(JSONWriter.string(payload, style: .compact).utf8))
        guard let pushPayload = read.deliverablePayload else {
            throw RemoteCheckoutError(
                code: "invalid_push_payload",
                message: "the server's push_payload is not deliverable: \(read.report.errors.map(\.description).joined(separator: "; "))")
        }
        let capture = CaptureMethod(rawValue: json["capture_method"]?.stringValue ?? "") ?? .automatic
        return RemoteCheckout(id: id, clientSecret: secret, captureMethod: capture, pushPayload: pushPayload)
    }

    /// Runs blocking `work` on a thread of its own, so a call that waits out the sheet's
    /// 25 s never holds one of the few cooperative threads.
    public static func offThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }
}
