import Foundation
import MockProcessor
import PayPanel
import PayPanelHTTP

/// `paypanel processor serve`: the mock processor as a Stripe-compatible HTTP subset
/// (docs/mock-processor.md), on the project's HTTP core.
///
/// ```swift
/// let server = try ProcessorServer.start(processor: mock, clock: SystemClock(), configuration: .init(host: "127.0.0.1", port: 0))
/// // point a Stripe SDK at http://127.0.0.1:\(server.port) with any sk_test_… key
/// ```
public final class ProcessorServer: Sendable {
    /// What the server enforces beyond the HTTP core's limits.
    public struct Options: Sendable {
        /// Parameter limits (pairs, nesting, key and value sizes).
        public var formLimits = FormLimits()
        /// How long a request whose answer is "lost" (TIMEOUT_THEN_*, CAPTURE_TIMEOUT) is held
        /// before its connection is closed: longer than any client's timeout, and bounded so no
        /// request holds a task forever.
        public var holdLimit: Duration = .seconds(300)
        /// How the webhook sender posts (default: plain http only; the program adds URLSession for https).
        package var webhookTransport: any WebhookTransport = PlainHTTPWebhookTransport()
        /// How often (real time) the sender looks for deliveries due on their account's clock.
        public var webhookPollInterval: Duration = .milliseconds(200)
        /// Counts what the account store writes (tests: a request's write must not grow with the account).
        public var accountStoreWrites: AccountStoreWrites?
        /// Accounts kept in memory at most (`ProcessorService.residentAccounts`); tests lower it.
        public var residentAccounts = 1000
        public init() {}
    }

    public let http: HTTPServer
    let service: ProcessorService
    /// Saved account data found at start that could not be read: an earlier version's snapshot
    /// file (that account starts empty) or one object's row (left out of its account).
    public let unreadableSnapshots: [String]
    /// The webhook sender's loop (`WebhookSender`), cancelled at shutdown.
    private let sender: Task<Void, Never>

    public var port: Int { http.port }

    private init(http: HTTPServer, service: ProcessorService, unreadableSnapshots: [String], sender: Task<Void, Never>) {
        self.http = http
        self.service = service
        self.unreadableSnapshots = unreadableSnapshots
        self.sender = sender
    }

    deinit {
        sender.cancel()
    }

    /// Starts listening. The HTTP core's refusals (413, 431, 408…) use Stripe's envelope too.
    public static func start(
        processor: MockProcessor, clock: any WallClock, configuration: HTTPServer.Configuration, options: Options = Options()
    ) async throws -> ProcessorServer {
        let service = try ProcessorService(
            mock: processor, clock: clock, webhookBox: try Self.webhookBox(ledgerPath: processor.ledgerPath),
            accountStoreWrites: options.accountStoreWrites, residentAccounts: options.residentAccounts)
        let unreadable = await service.restore()
        var configuration = configuration
        configuration.rejectionResponse = { status, reason in
            HTTPResponse.json(Array(JSONWriter.string(StripeError(status: status, type: "invalid_request_error", message: reason).json).utf8), status: status)
        }
        let routes = ProcessorRoutes(service: service, options: options)
        let http = try HTTPServer.start(configuration: configuration, admission: routes.router.admission)
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        await service.setBaseURL("http://\(host):\(http.port)")
        let transport = options.webhookTransport
        let interval = options.webhookPollInterval
        let sender = Task {
            while !Task.isCancelled {
                await service.deliverDueWebhooks(transport: transport)
                // After the pass's attempts are recorded: a test that saw the count grow past a
                // pass begun after its point of interest knows that pass found nothing more due.
                service.webhookSenderPasses.recordPass()
                try? await Task.sleep(for: interval)
            }
        }
        return ProcessorServer(http: http, service: service, unreadableSnapshots: unreadable, sender: sender)
    }

    /// Stops accepting, lets requests in flight finish for up to `grace`, then closes the rest.
    public func shutdown(grace: Duration) async {
        sender.cancel()
        await http.shutdown(grace: grace)
    }

    /// The box for endpoint secrets: its key beside the ledger (`<ledger>.webhook-key`, 0600), or
    /// a random one for a `:memory:` ledger (its endpoints die with the process anyway).
    static func webhookBox(ledgerPath: String) throws -> WebhookSecretBox {
        if ledgerPath == ":memory:" || ledgerPath.isEmpty { return try WebhookSecretBox(masterKey: SystemRandomBytes().bytes(32)) }
        return try WebhookSecretBox(masterKey: try WebhookKeyFile.loadOrCreate(path: WebhookKeyFile.path(forDatabase: ledgerPath)))
    }
}

/// The routes and the glue every route shares: authentication, parameters, idempotency keys,
/// `Request-Id`, and turning a `Reply` into an answer, a held connection or a dropped one.
struct ProcessorRoutes: Sendable {
    let service: ProcessorService
    let options: ProcessorServer.Options

    /// What each route takes (`ParameterShape`), checked before it runs. A route missing here
    /// answers 500 (`UnknownParameterTests` checks that every route of the table has one).
    static let parameterShapes: [String: ParameterShape] = [
        "POST /v1/payment_intents": ProcessorService.createShape,
        "GET /v1/payment_intents": .listing,
        "GET /v1/payment_intents/search": .members(["query": .value, "limit": .value, "page": .value, "expand": .list]),
        "GET /v1/payment_intents/{id}": .retrieve,
        "POST /v1/payment_intents/{id}": ProcessorService.updateIntentShape,
        "POST /v1/payment_intents/{id}/confirm": ProcessorService.confirmShape,
        "POST /v1/payment_intents/{id}/capture": .members(["amount_to_capture": .value, "metadata": .hash, "expand": .list]),
        "POST /v1/payment_intents/{id}/cancel": .members(["cancellation_reason": .value, "expand": .list]),
        "POST /v1/refunds": .members(["payment_intent": .value, "amount": .value, "metadata": .hash, "reason": .value, "expand": .list]),
        "GET /v1/refunds": .listing.adding(["payment_intent": .value]),
        "GET /v1/refunds/{id}": .retrieve,
        "POST /v1/refunds/{id}": .members(["metadata": .hash, "expand": .list]),
        "GET /v1/charges": .listing.adding(["payment_intent": .value, "customer": .value]),
        "GET /v1/charges/{id}": .retrieve,
        "GET /v1/charges/search": .members(["query": .value, "limit": .value, "page": .value, "expand": .list]),
        "POST /v1/payment_methods": .members([
            "type": .value, "metadata": .hash, "expand": .list, "billing_details": .members(["name": .value]),
            "card": .members(["number": .value, "exp_month": .value, "exp_year": .value, "cvc": .ignored, "token": .value]),
        ]),
        "GET /v1/payment_methods": .listing.adding(["customer": .value, "type": .value]),
        "GET /v1/payment_methods/{id}": .retrieve,
        "POST /v1/payment_methods/{id}/attach": .members(["customer": .value, "expand": .list]),
        "POST /v1/payment_methods/{id}/detach": .members(["expand": .list]),
        "POST /v1/customers": ProcessorService.customerShape,
        "GET /v1/customers": .listing.adding(["email": .value]),
        "GET /v1/customers/{id}": .retrieve,
        "POST /v1/customers/{id}": ProcessorService.customerShape,
        "DELETE /v1/customers/{id}": .nothing,
        "POST /_mock/3ds/{id}": .members(["outcome": .value]),
        "GET /_mock/ledger": .nothing,
        "POST /_mock/reset": .members(["scope": .value]),
        "GET /_mock/triggers": .nothing,
        "POST /_mock/chains": .members(["card": .value, "chain": .value]),
        "POST /_mock/clock/advance": .members(["seconds": .value]),
        "POST /v1/webhook_endpoints": .members([
            "url": .value, "enabled_events": .list, "description": .value, "metadata": .ignored, "api_version": .ignored, "connect": .ignored,
        ]),
        "GET /v1/webhook_endpoints": .nothing,
        "GET /v1/webhook_endpoints/{id}": .retrieve,
        "DELETE /v1/webhook_endpoints/{id}": .nothing,
        "POST /_mock/events/{id}/resend": .nothing,
        "GET /_mock/webhook_deliveries": .nothing,
    ]

    /// The API version a request asked for; `handle` has already refused an unknown one.
    static func version(_ context: RequestContext) -> StripeAPIVersion {
        (try? StripeAPIVersion(header: context.headers["Stripe-Version"])) ?? .accountDefault
    }

    /// The shape of the route `context` matched.
    static func parameterShape(_ context: RequestContext) -> ParameterShape? {
        context.route.flatMap { parameterShapes["\($0.method.rawValue) \($0.pattern.text)"] }
    }

    var router: Router {
        var router = Router()
        // Every error in Stripe's envelope, the router's own included (no route, wrong method),
        // so an SDK raises the typed error it raises against Stripe, never a parse failure.
        router.errorResponse = { error, context in
            if let error = error as? HTTPError { return StripeError(routing: error, context).response(for: context) }
            if let error = error as? any HTTPResponseError { return error.response(for: context) }
            return StripeError.apiError("Unexpected failure.").response(for: context)
        }
        router.use(Middleware { context, next in
            var response = await next(context)
            response.headers.replaceOrAdd(name: "Request-Id", value: "req_" + context.requestID)
            // The version the answer is in, as Stripe says it (`handle` refused unknown ones).
            if let version = try? StripeAPIVersion(header: context.headers["Stripe-Version"]) {
                response.headers.replaceOrAdd(name: "Stripe-Version", value: version.name)
            }
            return response
        })
        let service = service
        // Every route takes a secret test key, checked before the body is read; it names
        // the account (`handle` looks the account up).
        router.group(StripeKeyCredential()) { group in
            group.post("/v1/payment_intents") { context in
                await handle(context, idempotent: true) { tag, parameters, key in
                    await service.createIntent(
                        tag, parameters, idempotencyKey: key, scenario: context.headers["Mock-Scenario"], version: Self.version(context))
                }
            }
            group.get("/v1/payment_intents") { context in
                await handle(context) { tag, query, _ in await service.listIntents(tag, query) }
            }
            group.get("/v1/payment_intents/search") { context in
                await handle(context) { tag, query, _ in await service.searchIntents(tag, query) }
            }
            group.get("/v1/payment_intents/{id}") { context in
                await handle(context) { tag, _, _ in await service.retrieveIntent(tag, id: context.pathParameters["id"] ?? "") }
            }
            group.post("/v1/payment_intents/{id}") { context in
                await handle(context, idempotent: true) { tag, parameters, key in
                    await service.updateIntent(tag, id: context.pathParameters["id"] ?? "", parameters, idempotencyKey: key)
                }
            }
            group.post("/v1/payment_intents/{id}/confirm") { context in
                await handle(context, idempotent: true) { tag, parameters, key in
                    await service.confirmIntent(
                        tag, id: context.pathParameters["id"] ?? "", parameters, idempotencyKey: key, scenario: context.headers["Mock-Scenario"])
                }
            }
            group.post("/v1/payment_intents/{id}/capture") { context in
                await handle(context, idempotent: true) { tag, parameters, _ in
                    await service.captureIntent(tag, id: context.pathParameters["id"] ?? "", parameters)
                }
            }
            group.post("/v1/payment_intents/{id}/cancel") { context in
                await handle(context, idempotent: true) { tag, parameters, _ in
                    await service.cancelIntent(tag, id: context.pathParameters["id"] ?? "", parameters)
                }
            }
            group.post("/v1/refunds") { context in
                await handle(context, idempotent: true) { tag, parameters, key in await service.createRefund(tag, parameters, idempotencyKey: key) }
            }
            group.get("/v1/refunds") { context in
                await handle(context) { tag, query, _ in await service.listRefunds(tag, query) }
            }
            group.get("/v1/refunds/{id}") { context in
                await handle(context) { tag, _, _ in await service.retrieveRefund(tag, id: context.pathParameters["id"] ?? "") }
            }
            group.post("/v1/refunds/{id}") { context in
                await handle(context, idempotent: true) { tag, parameters, _ in
                    await service.updateRefund(tag, id: context.pathParameters["id"] ?? "", parameters)
                }
            }
            group.get("/v1/charges") { context in
                await handle(context) { tag, query, _ in await service.listCharges(tag, query) }
            }
            group.get("/v1/charges/search") { context in
                await handle(context) { tag, query, _ in await service.searchCharges(tag, query) }
            }
            group.get("/v1/charges/{id}") { context in
                await handle(context) { tag, _, _ in await service.retrieveCharge(tag, id: context.pathParameters["id"] ?? "") }
            }
            group.post("/v1/payment_methods") { context in
                await handle(context, idempotent: true) { tag, parameters, key in await service.createPaymentMethod(tag, parameters, idempotencyKey: key) }
            }
            group.get("/v1/payment_methods") { context in
                await handle(context) { tag, query, _ in await service.listPaymentMethods(tag, query) }
            }
            group.get("/v1/payment_methods/{id}") { context in
                await handle(context) { tag, _, _ in await service.retrievePaymentMethod(tag, id: context.pathParameters["id"] ?? "") }
            }
            group.post("/v1/payment_methods/{id}/attach") { context in
                await handle(context, idempotent: true) { tag, parameters, _ in
                    await service.attachPaymentMethod(tag, id: context.pathParameters["id"] ?? "", parameters)
                }
            }
            group.post("/v1/payment_methods/{id}/detach") { context in
                await handle(context, idempotent: true) { tag, _, _ in await service.detachPaymentMethod(tag, id: context.pathParameters["id"] ?? "") }
            }
            group.post("/v1/customers") { context in
                await handle(context, idempotent: true) { tag, parameters, key in await service.createCustomer(tag, parameters, idempotencyKey: key) }
            }
            group.get("/v1/customers") { context in
                await handle(context) { tag, query, _ in await service.listCustomers(tag, query) }
            }
            group.get("/v1/customers/{id}") { context in
                await handle(context) { tag, _, _ in await service.retrieveCustomer(tag, id: context.pathParameters["id"] ?? "") }
            }
            group.post("/v1/customers/{id}") { context in
                await handle(context, idempotent: true) { tag, parameters, _ in
                    await service.updateCustomer(tag, id: context.pathParameters["id"] ?? "", parameters)
                }
            }
            group.delete("/v1/customers/{id}") { context in
                await handle(context) { tag, _, _ in await service.deleteCustomer(tag, id: context.pathParameters["id"] ?? "") }
            }
            group.post("/_mock/3ds/{id}") { context in
                await handle(context) { tag, parameters, _ in
                    guard let outcome = try? parameters.string("outcome"), outcome == "pass" || outcome == "fail" else {
                        return .error(.invalidRequest("outcome must be pass or fail.", param: "outcome"))
                    }
                    return await service.completeChallenge(tag, id: context.pathParameters["id"] ?? "", passed: outcome == "pass")
                }
            }
            group.get("/_mock/ledger") { context in
                await handle(context) { tag, _, _ in await service.ledger(tag) }
            }
            group.post("/_mock/reset") { context in
                await handle(context) { tag, parameters, _ in
                    let scope = (try? parameters.string("scope")) ?? "account"
                    guard scope == "account" || scope == "all" else {
                        return .error(.invalidRequest("scope must be account (this key's data) or all.", param: "scope"))
                    }
                    return await service.reset(tag, all: scope == "all")
                }
            }
            group.get("/_mock/triggers") { context in
                await handle(context) { _, _, _ in service.triggers() }
            }
            group.post("/_mock/chains") { context in
                await handle(context) { tag, parameters, _ in await service.setChain(tag, parameters) }
            }
            group.post("/_mock/clock/advance") { context in
                await handle(context) { tag, parameters, _ in await service.advanceClock(tag, parameters) }
            }
            group.post("/v1/webhook_endpoints") { context in
                await handle(context) { tag, parameters, _ in await service.webhookEndpoints.create(tag, parameters, now: await service.now(tag)) }
            }
            group.get("/v1/webhook_endpoints") { context in
                await handle(context) { tag, _, _ in await service.webhookEndpoints.list(tag) }
            }
            group.get("/v1/webhook_endpoints/{id}") { context in
                await handle(context) { tag, _, _ in await service.webhookEndpoints.retrieve(tag, id: context.pathParameters["id"] ?? "") }
            }
            group.delete("/v1/webhook_endpoints/{id}") { context in
                await handle(context) { tag, _, _ in await service.webhookEndpoints.delete(tag, id: context.pathParameters["id"] ?? "") }
            }
            group.post("/_mock/events/{id}/resend") { context in
                await handle(context) { tag, _, _ in await service.webhookEndpoints.resend(tag, id: context.pathParameters["id"] ?? "", now: await service.now(tag)) }
            }
            group.get("/_mock/webhook_deliveries") { context in
                await handle(context) { tag, _, _ in await service.webhookEndpoints.deliveries(tag) }
            }
        }
        return router
    }

    /// Reads the parameters (query for GET, body for POST), then, in one call to the service,
    /// finds the key's account, applies the Idempotency-Key on POSTs that take one and runs
    /// `route`; delivers its reply. The parameters are read and checked here, on the handler's
    /// thread: they need no account, and the service's thread is the one every request shares.
    private func handle(
        _ context: RequestContext, idempotent: Bool = false,
        _ route: nonisolated(nonsending) @Sendable (String, Parameters, String?) async -> Reply
    ) async -> HTTPResponse {
        let secretKey: String
        let parameters: Parameters
        let expansion: Expansion
        do throws(StripeError) {
            guard let key = context.principal(as: StripeSecretKey.self) else { throw StripeError.apiError("Unexpected failure.") }
            secretKey = key.value
            _ = try StripeAPIVersion(header: context.headers["Stripe-Version"])
            parameters = Parameters(try readParameters(context))
            guard let shape = Self.parameterShape(context) else { throw StripeError.apiError("This route does not say which parameters it takes.") }
            if let unknown = shape.firstUnknown(in: parameters.root) {
                throw StripeError.invalidRequest("Received unknown parameter: \(unknown)", param: unknown)
            }
            expansion = try Expansion(parameters)
            if !expansion.isEmpty {
                guard let route = context.route, let answer = Expansion.answerType(method: route.method.rawValue, pattern: route.pattern.text) else {
                    throw StripeError.invalidRequest("This route answers no object that can be expanded.", param: "expand")
                }
                try expansion.validate(root: answer.type, list: answer.list)
            }
        } catch {
            return error.response(for: context)
        }
        // The route's answer with `expand[]` applied, before it is kept for an idempotent replay.
        let service = service
        @Sendable nonisolated(nonsending) func body(_ tag: String, _ key: String?) async -> Reply {
            let reply = await route(tag, parameters, key)
            guard !expansion.isEmpty, case .respond(let status, let json, let headers, let delay) = reply, status == .ok else { return reply }
            do throws(StripeError) {
                let expanded = try await expansion.apply(to: json) { type, id in await service.expansionTarget(tag, type: type, id: id) }
                return .respond(status: status, json: expanded, headers: headers, delay: delay)
            } catch {
                return .error(error)
            }
        }
        guard idempotent, let key = context.headers["Idempotency-Key"] else {
            do throws(StripeError) {
                let reply = try await service.answer(key: secretKey, persisting: context.method == .post) { tag in await body(tag, nil) }
                return await deliver(reply, context: context)
            } catch {
                return error.response(for: context)
            }
        }
        guard !key.isEmpty, key.utf8.count <= 255 else {
            return StripeError.invalidRequest("Idempotency-Key must be 1 to 255 characters.", param: "Idempotency-Key").response(for: context)
        }
        let fingerprint = "\(context.method) \(context.path) " + Self.canonical(parameters.root)
        let answer: ProcessorService.IdempotentAnswer
        do throws(StripeError) {
            answer = try await service.answer(key: secretKey, idempotencyKey: key, fingerprint: fingerprint) { tag in await body(tag, key) }
        } catch {
            return error.response(for: context)
        }
        switch answer {
        case .replay(let stored):
            var response = HTTPResponse.json(stored.body, status: HTTPStatus(code: stored.status))
            response.headers.replaceOrAdd(name: "Idempotent-Replayed", value: "true")
            response.headers.replaceOrAdd(name: "Idempotency-Key", value: key)
            return response
        case .mismatch:
            return StripeError(
                status: .badRequest, type: "idempotency_error",
                message: "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '\(JSONWriter.quoted(key, limit: 60).dropFirst().dropLast())' if you meant to execute a different request."
            ).response(for: context)
        case .inFlight:
            return StripeError(
                status: .conflict, type: "idempotency_error", code: "idempotency_key_in_use",
                message: "There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): retry later."
            ).response(for: context)
        case .held(let tag):
            // Still "in flight" while held, as at a processor that is still working on it.
            let response = await deliver(.hold, context: context)
            await service.finishHeld(tag, idempotencyKey: key)
            return response
        case .reply(let reply):
            var response = await deliver(reply, context: context)
            response.headers.replaceOrAdd(name: "Idempotency-Key", value: key)
            return response
        }
    }

    private func deliver(_ reply: Reply, context: RequestContext) async -> HTTPResponse {
        switch reply {
        case .respond(let status, let json, let headers, let delay):
            if delay > .zero { try? await Task.sleep(for: delay) }
            return HTTPResponse.json(Array(JSONWriter.string(json).utf8), status: status, headers: headers)
        case .hold:
            try? await Task.sleep(for: options.holdLimit)
            return .droppedConnection()
        case .drop(let delay):
            if delay > .zero { try? await Task.sleep(for: delay) }
            return .droppedConnection()
        }
    }

    private func readParameters(_ context: RequestContext) throws(StripeError) -> FormValue {
        do {
            if context.method == .get || context.method == .head || context.method == .delete {
                // As at Stripe, these take their parameters in the query; a body would be dropped.
                guard context.body.isEmpty else {
                    throw StripeError.invalidRequest("\(context.method.rawValue) takes its parameters in the query string, not in a body.")
                }
                return try FormParameters.parseForm(Array((context.request.target.query ?? "").utf8), limits: options.formLimits)
            }
            let type = context.headers["Content-Type"]?.lowercased() ?? ""
            if type.hasPrefix("application/json") { return try FormParameters.parseJSON(context.body, limits: options.formLimits) }
            guard type.isEmpty || type.hasPrefix("application/x-www-form-urlencoded") else {
                throw StripeError.invalidRequest("Content-Type must be application/x-www-form-urlencoded or application/json, not \(JSONWriter.quoted(type, limit: 60)).")
            }
            return try FormParameters.parseForm(context.body, limits: options.formLimits)
        } catch let error as FormError {
            throw StripeError(error)
        } catch let error as StripeError {
            throw error
        } catch {
            throw StripeError.apiError("Unexpected failure.")
        }
    }

    /// A parameter tree as one string, keys in order, for comparing idempotent requests.
    static func canonical(_ value: FormValue) -> String {
        switch value {
        case .string(let text): JSONWriter.string(.string(text))
        case .list(let items): "[" + items.map(canonical).joined(separator: ",") + "]"
        case .object(let members): "{" + members.map { JSONWriter.string(.string($0.key)) + ":" + canonical($0.value) }.joined(separator: ",") + "}"
        }
    }
}

/// Every route's credential: a secret test key (`Authentication`), checked from the head.
struct StripeKeyCredential: RouteCredential {
    var name: String { "secret test key" }

    func authenticate(_ context: RequestContext) async throws -> (any Sendable)? {
        StripeSecretKey(value: try Authentication.key(context.headers["Authorization"]))
    }
}

/// The key a request authenticated with: it names the account.
struct StripeSecretKey: Sendable {
    let value: String
}

/// Stripe's authentication: `Authorization: Bearer sk_test_…`, or Basic with the key as the
/// user name. Any well-formed test key is accepted and names its own account.
enum Authentication {
    static func key(_ header: String?) throws(StripeError) -> String {
        guard let header, !header.isEmpty else {
            throw unauthorized("You did not provide an API key. Send it as 'Authorization: Bearer sk_test_…' (any sk_test_ key works here).")
        }
        var key: String?
        if header.lowercased().hasPrefix("bearer ") {
            key = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        } else if header.lowercased().hasPrefix("basic "),
            let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8)
        {
            key = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
        }
        guard let key, key.hasPrefix("sk_test_"), key.count > 8, key.utf8.count <= 255,
            key.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else {
            let shown = key.map { $0.count > 4 ? "…" + $0.suffix(4) : "…" } ?? "(unreadable)"
            throw unauthorized("Invalid API Key provided: \(shown). This mock takes any secret test key (sk_test_ followed by letters, digits or _), as a Bearer token or the Basic user name.")
        }
        return key
    }

    private static func unauthorized(_ message: String) -> StripeError {
        var error = StripeError(status: .unauthorized, type: "invalid_request_error", message: message)
        error.headers = ["WWW-Authenticate": "Bearer realm=\"Stripe\""]
        return error
    }
}
