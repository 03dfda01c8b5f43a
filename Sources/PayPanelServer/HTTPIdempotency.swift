import Foundation
import PayPanel
import PayPanelHTTP

/// `Idempotency-Key` for every POST of the API, with Stripe's semantics, over the library's
/// `IdempotencyStore` on a connection of its own.
///
/// One mechanism, at the edge: the key wraps the whole HTTP response (status and body) and the
/// payment service is called with no key of its own. A retry therefore gets what the first
/// request got — a 402 decline, a created intent, a refused refund — whichever route it is.
///
/// - scope: method, route pattern and API key id (or the checkout, for the device's calls), so
///   two merchants' keys never collide and one key cannot be replayed on another route;
/// - parameters: the actual path (the intent id is in it) and the SHA-256 of the body;
/// - validation failures (4xx decided before any work) store nothing: the route validates
///   before it calls `run`;
/// - the claim is the work's recovery point: a route that calls the processor hands it to the
///   service, which attaches what it starts (the attempt, the refund, the intent it captures
///   or cancels) in the transaction that starts it;
/// - a final answer (2xx, or a 4xx about the request: a decline, a refund larger than what is
///   left) is stored and replayed;
/// - a transient answer (`RouteAnswer.isFinal` false: a 5xx, or a 409 because another request
///   on the same intent was running) is never stored: the claim is given up by the library's
///   one rule (`IdempotencyStore.giveUp`). Nothing attached: the key is released and the retry
///   runs for real. Something attached: the key stays claimed, and the retry — at once, no
///   lease to wait for — takes it over and *resumes* that resource (`resume`: looks its call
///   up, finishes it) and answers what the route would have answered, never running the
///   operation a second time;
/// - the same rule applies when the answer cannot be stored (a full disk): the client still
///   gets it, and a retry resumes from the resource;
/// - when giving the claim up fails too (the database is down), the failure is written to
///   `log` (an operator must know a key is held) and the claim is given up before the next
///   reservation once the database takes writes again; only a crash leaves it to its lease;
/// - a request that crashed leaves its claim in progress: a duplicate gets 409
///   `idempotency_key_in_use` until the lease runs out, then takes it over and resumes (5
///   minutes for routes that can resume; a day, the key's whole life, for routes whose work
///   attaches nothing and so could not tell a finished write from an unstarted one).
actor HTTPIdempotency {
    /// Its own thread: the synchronous store calls below run on it, never on the cooperative
    /// pool (`ActorThread`). Each goes through the store's `awaitingFlush`, so its wait for the
    /// flush suspends the actor, and the keys of other requests claimed meanwhile join it.
    private let thread = ActorThread(name: "http-idempotency")
    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    deinit { thread.stop() }
    private let idempotency: IdempotencyStore
    private let clock: any WallClock

    static let header = "Idempotency-Key"
    static let replayedHeader = "Idempotent-Replayed"
    /// How long a key is remembered.
    static let lifetime: TimeInterval = 24 * 3600
    /// How long the claim of a route that can resume protects a request that may still be
    /// running; after it, a duplicate takes over (the request's process died).
    static let resumableLease: TimeInterval = 5 * 60

    init(store: sending any PaymentStore, clock: any WallClock) throws {
        idempotency = IdempotencyStore(store: store, lifetime: Self.lifetime, inProgressLease: Self.lifetime)
        self.clock = clock
    }

    func reserve(key: String, scope: String, parameters: JSONValue, lease: TimeInterval) async throws -> IdempotencyReservation {
        let now = clock.now()
        return try await idempotency.store.awaitingFlush { try idempotency.reserve(key: key, scope: scope, parameters: parameters, at: now, lease: lease) }
    }

    func complete(_ claim: IdempotencyClaim, with response: HTTPResponse) async throws {
        let body = (try? JSONParser().parse(response.body)) ?? .null
        let stored = IdempotentPayload.httpResponse(status: response.status.code, body: body)
        let result: IdempotentResult = response.status.code < 400
            ? .succeeded(stored)
            : .failed(code: body["error"]?["code"]?.stringValue ?? "http_\(response.status.code)", message: "", payload: stored)
        let now = clock.now()
        try await idempotency.store.awaitingFlush { try idempotency.complete(claim, with: result, at: now) }
    }

    func giveUp(_ claim: IdempotencyClaim) async throws -> GivenUpClaim {
        try await idempotency.store.awaitingFlush { try idempotency.giveUp(claim) }
    }

    /// Runs the route once per key (see the type's rules); without the header `work` simply
    /// runs, with no recovery point. `resume` answers from the resource a failed or crashed run
    /// attached; nil for routes whose work attaches nothing. `owner` is who the keys belong to
    /// when the request has no API key (the device's `/pay`: its checkout), so two devices'
    /// keys never meet.
    nonisolated func run(
        _ context: RequestContext, owner: String?, log: @Sendable (JSONValue) -> Void,
        resume: ((String) async -> RouteAnswer)?, _ work: (IdempotencyClaim?) async -> RouteAnswer
    ) async throws -> HTTPResponse {
        guard let key = context.headers[Self.header] else { return await work(nil).response }
        let route = context.route?.pattern.text ?? context.path
        let scope = "http \(context.method) \(route) \(owner ?? context.principal(as: APIKeyRecord.self)?.id ?? "-")"
        let parameters = JSONValue.orderedObject([
            ("path", .string(context.path)), ("body_sha256", .string(SHA256.hash(context.body).hexString)),
        ])
        let lease = resume == nil ? Self.lifetime : Self.resumableLease
        let claim: IdempotencyClaim
        switch try await reserve(key: key, scope: scope, parameters: parameters, lease: lease) {
        case .replay(let stored): return try Self.replay(stored, key: key)
        case .claimed(let claimed): claim = claimed
        }
        let answer: RouteAnswer
        if let resume, claim.isRecovery, let resourceID = claim.recoveredResourceID {
            answer = await resume(resourceID)
        } else {
            answer = await work(claim)
        }
        guard answer.isFinal else {
            await giveUp(claim, lease: lease, context: context, because: "the request failed with HTTP \(answer.response.status.code)", log: log)
            return answer.response
        }
        do {
            try await complete(claim, with: answer.response)
        } catch {
            log(Self.incident("answer_not_stored", claim: claim, context: context, error: error))
            await giveUp(claim, lease: lease, context: context, because: "its answer could not be stored", log: log)
        }
        return answer.response
    }

    /// Gives the claim up by the library's rule; a failure to do so is logged, never dropped.
    private nonisolated func giveUp(
        _ claim: IdempotencyClaim, lease: TimeInterval, context: RequestContext, because reason: String, log: @Sendable (JSONValue) -> Void
    ) async {
        do {
            _ = try await giveUp(claim)
        } catch {
            var line = Self.incident("claim_not_given_up", claim: claim, context: context, error: error)
            if case .object(var object) = line {
                object["why"] = .string(reason)
                object["held_for_seconds"] = .number(Int64(lease))
                line = .object(object)
            }
            log(line)
        }
    }

    /// One log line about a key: which request, which key (redacted), what failed (its code only:
    /// an error's text is the operator's to look up, and may name the statement).
    private static func incident(_ what: String, claim: IdempotencyClaim, context: RequestContext, error: any Error) -> JSONValue {
        .orderedObject([
            ("idempotency", .string(what)), ("request_id", .string(context.requestID)),
            ("key", .string(SensitiveDigits.redacted(claim.key))), ("scope", .string(claim.scope)),
            ("error", .string((error as? any PayPanelError)?.code ?? String(describing: type(of: error)))),
        ])
    }

    private static func replay(_ stored: IdempotentResponse, key: String) throws -> HTTPResponse {
        let status: HTTPStatus
        let body: JSONValue
        switch stored.result.payload {
        case .httpResponse(let code, let stored)?:
            (status, body) = (HTTPStatus(code: code), stored)
        // A key stored before results were typed holds `{"status", "body"}`.
        case .version0(let value)?:
            (status, body) = (value["status"]?.int64Value.map { HTTPStatus(code: Int($0)) } ?? .ok, value["body"] ?? .null)
        default:
            // The library's own keys (an intent, an outcome) are under scopes no route uses.
            throw IdempotencyError(key: key, reason: .unreadableResult("it holds the library's result, not an HTTP answer"))
        }
        var response = APIResponse.json(body, status: status)
        response.headers.replaceOrAdd(name: replayedHeader, value: "true")
        return response
    }
}

/// What a route answered under an idempotency key, and whether the key may keep it.
struct RouteAnswer {
    let response: HTTPResponse
    /// False for an answer about the moment rather than the request (`APIError.isTransient`):
    /// the server failed, or the request ran into another one still working on the same
    /// object. Such an answer is never stored for the key: its retry must get the real one.
    let isFinal: Bool
}
