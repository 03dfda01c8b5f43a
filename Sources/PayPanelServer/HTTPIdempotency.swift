import Foundation
import PayPanel
import PayPanelHTTP

/// `Idempotency-Key` for every POST of the API, with Stripe's semantics, over the library's
/// `IdempotencyStore` on a connection of its own.
///
/// One mechanism, at the edge: the key wraps the whole HTTP response (status and body, errors
/// included) and the checkout service is called with no key of its own. A retry therefore
/// gets byte-for-byte what the first request got — a 402 decline, a 409, a created intent —
/// whichever route it is, and there is one set of rules to reason about instead of two
/// nested ones that could disagree (the service's keys are scoped per operation and know
/// nothing of API keys or HTTP statuses).
///
/// - scope: method, route pattern and API key id, so two merchants' keys never collide and one
///   key cannot be replayed on another route;
/// - parameters: the actual path (the intent id is in it) and the SHA-256 of the body;
/// - validation failures (4xx decided before any work) store nothing: the route validates
///   before it calls `run`;
/// - a 503 (database busy) releases the claim, so the retry runs for real;
/// - a claim in progress is never taken over (the lease is the key's whole 24 h life): after a
///   crash mid-request the key answers 409 until it expires, and the client reads the intent
///   to learn what happened. Re-running a confirm or a refund blindly could pay twice.
actor HTTPIdempotency {
    private let idempotency: IdempotencyStore
    private let clock: any WallClock

    static let header = "Idempotency-Key"
    static let replayedHeader = "Idempotent-Replayed"

    init(store: sending any PaymentStore, clock: any WallClock) throws {
        idempotency = IdempotencyStore(store: store, lifetime: 24 * 3600, inProgressLease: 24 * 3600)
        self.clock = clock
    }

    func reserve(key: String, scope: String, parameters: JSONValue) throws -> IdempotencyReservation {
        try idempotency.reserve(key: key, scope: scope, parameters: parameters, at: clock.now())
    }

    func complete(_ claim: IdempotencyClaim, with response: HTTPResponse) throws {
        let body = (try? JSONParser().parse(response.body)) ?? .null
        let stored = JSONValue.orderedObject([("status", .number(response.status.code)), ("body", body)])
        let result: IdempotentResult = response.status.code < 400
            ? .succeeded(stored)
            : .failed(code: body["error"]?["code"]?.stringValue ?? "http_\(response.status.code)", message: "", body: stored)
        try idempotency.complete(claim, with: result, at: clock.now())
    }

    func release(_ claim: IdempotencyClaim) {
        try? idempotency.release(claim)
    }

    /// Runs `body` once per key (see the type's rules); without the header it simply runs.
    /// `body` never throws: its errors are already responses. `owner` is who the keys belong to
    /// when the request has no API key (the device's `/pay`: its checkout), so two devices'
    /// keys never meet.
    nonisolated func run(_ context: RequestContext, owner: String? = nil, _ body: () async -> HTTPResponse) async throws -> HTTPResponse {
        guard let key = context.headers[Self.header] else { return await body() }
        let route = context.route?.pattern.text ?? context.path
        let scope = "http \(context.method) \(route) \(owner ?? context.principal(as: APIKeyRecord.self)?.id ?? "-")"
        let parameters = JSONValue.orderedObject([
            ("path", .string(context.path)), ("body_sha256", .string(SHA256.hash(context.body).hexString)),
        ])
        switch try await reserve(key: key, scope: scope, parameters: parameters) {
        case .replay(let stored):
            return Self.replay(stored)
        case .claimed(let claim):
            let response = await body()
            if response.status == .serviceUnavailable {
                await release(claim)
            } else {
                try await complete(claim, with: response)
            }
            return response
        }
    }

    private static func replay(_ stored: IdempotentResponse) -> HTTPResponse {
        let value: JSONValue? = switch stored.result {
        case .succeeded(let value): value
        case .failed(_, _, let value): value
        }
        let status = value?["status"]?.int64Value.map { HTTPStatus(code: Int($0)) } ?? .ok
        var response = APIResponse.json(value?["body"] ?? .null, status: status)
        response.headers.replaceOrAdd(name: replayedHeader, value: "true")
        return response
    }
}
