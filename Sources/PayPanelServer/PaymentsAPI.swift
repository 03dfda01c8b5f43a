import Foundation
import PayPanel
import PayPanelHTTP

/// Routes a front end adds beside the payments API (the checkouts and the device's `/pay`
/// call plug in here): they get the same request ids, error envelope and access log, declare
/// each route's credential where they add it (`PaymentsAPI.secretKey`, …), and must document
/// themselves in the OpenAPI document.
public protocol APIRouteProvider: Sendable {
    /// Adds the routes, each with its credential. Throw `HTTPResponseError`s or library
    /// errors; the edge maps them.
    func addRoutes(to router: inout Router)
    /// OpenAPI 3.1 path items by path (`"/v1/checkouts/{id}/pay": {...}`), merged into /openapi.json.
    var openAPIPaths: [(path: String, item: JSONValue)] { get }
}

/// The HTTP API of PayPanel as thin translation over `PaymentService`: parse and validate
/// the request into library values, call one service method, render the typed result in the
/// API's JSON. No business rule lives here; errors become one envelope at the edge
/// (`APIError.from`).
public struct PaymentsAPI: Sendable {
    public let service: PaymentService
    let keys: APIKeyAuthenticator
    let idempotency: HTTPIdempotency
    /// Verifies and decrypts Apple Pay tokens for `confirm` with `payment_method[type]=apple_pay`
    /// (the same merchant keys and trust as the device's `/pay`); nil refuses them with 400.
    public var tokenDecryptor: ApplePayTokenDecryptor?
    /// The test-mode demo page's key (`serve --test-root`); nil in production. Routes that grant
    /// it a power take it beside the secret key; everywhere else it is refused with a 403.
    public var demoKey: DemoKey?
    /// Lines for the operator about what went wrong outside any response (an idempotency key
    /// whose claim could not be given up stays held); `paypanel serve` writes them to stderr.
    public var log: @Sendable (JSONValue) -> Void = { _ in }
    /// The worker's finished passes (`PaymentsServer` runs the worker and counts them here).
    package let workerPasses = WorkerPasses()

    /// The API over `service`, with its own connections to `databasePath` (the service's
    /// SQLite database) for key checks and idempotency keys.
    public init(service: PaymentService, databasePath: String, clock: any WallClock) throws {
        try self.init(service: service, stores: SQLiteStoreFactory(path: databasePath, clock: clock), clock: clock)
    }

    /// The API over `service`, with stores of their own from `stores` (the service's database,
    /// SQLite or PostgreSQL) for key checks and idempotency keys.
    package init(service: PaymentService, stores: any PaymentStoreFactory, clock: any WallClock) throws {
        self.service = service
        self.keys = try APIKeyAuthenticator(stores: stores)
        self.idempotency = try HTTPIdempotency(store: try stores.openPaymentStore(), clock: clock)
    }

    /// Every route: health, the OpenAPI document, the payments API, then `providers`' routes.
    /// Each declares its credential as it is added; the router checks it on the route that
    /// matched, before the body is read (docs/http-api.md, "Credentials").
    public func router(adding providers: [any APIRouteProvider] = []) -> Router {
        var router = Router()
        router.errorResponse = { [log] error, context in
            Self.logStoreFault(error, requestID: context.requestID, log: log)
            return APIError.from(error).response(requestID: context.requestID)
        }
        router.use(.requestID(header: "Request-Id"))
        router.get("/healthz", credential: .none) { [workerPasses] _ in
            APIResponse.json(.orderedObject([
                ("object", "health"), ("id", "healthz"), ("status", "ok"), ("worker_passes", .number(workerPasses.finished)),
            ]))
        }
        router.get("/readyz", credential: .none) { [keys] _ in
            // Asked again at every probe: a disk freed or a file made writable is ready again.
            if let notReady = await keys.readiness() {
                throw APIError(status: .serviceUnavailable, kind: .api, code: notReady.fault?.code ?? "not_ready", message: notReady.reason)
            }
            return APIResponse.json(.orderedObject([("object", "health"), ("id", "readyz"), ("status", "ready")]))
        }
        // Browsers ask every origin for an icon; "nothing here" keeps their consoles clean.
        router.get("/favicon.ico", credential: .none) { _ in
            HTTPResponse(status: .noContent, headers: ["Cache-Control": "public, max-age=86400"])
        }
        router.group(secretKey) { v1 in
            addIntentRoutes(to: &v1)
            addResolveRoute(to: &v1)
            addRefundRoutes(to: &v1)
        }
        for provider in providers { provider.addRoutes(to: &router) }
        // Last, from the finished table: each operation's security is its route's credential.
        let document = OpenAPISecurity.securing(OpenAPIDocument.make(extraPaths: providers.flatMap(\.openAPIPaths)), by: router.table)
        router.get("/openapi.json", credential: .none) { _ in APIResponse.json(document) }
        return router
    }

    /// The merchant's credential: an active secret key (a demo key is refused with a 403 that
    /// says what it may do).
    public var secretKey: any RouteCredential {
        let key = SecretKeyCredential(keys: keys)
        guard let demoKey else { return key }
        return EitherCredential(demoKey.refusedElsewhere, otherwise: key)
    }

    /// A secret key, or the demo key where it has `power` (test mode only).
    public func secretKey(orDemoKeyWith power: DemoKey.Power) -> any RouteCredential {
        guard let demoKey else { return SecretKeyCredential(keys: keys) }
        return EitherCredential(demoKey.credential(for: power), otherwise: SecretKeyCredential(keys: keys))
    }

    /// Runs a route's work under its `Idempotency-Key` (`HTTPIdempotency`); errors become the
    /// envelope first, so they are stored and replayed like any other response — unless they
    /// are transient. For work that attaches nothing to the key: one write, which either
    /// happened or not, so a failure leaves nothing to resume.
    func idempotent(
        _ context: RequestContext, owner: String? = nil, _ work: @escaping () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        try await idempotency.run(context, owner: owner, log: log, resume: nil) { [log] _ in
            await Self.answer(context, log: log, work)
        }
    }

    /// `idempotent` for work that starts something outside one write (a processor call): `work`
    /// hands the key's claim (`recoveryPoint`, nil without a key) to the service, which attaches
    /// what it starts — the attempt, the refund, the intent — in the transaction that starts it.
    /// When a run fails after that, the next request with the key does not run `work` again:
    /// it calls `resume` with the attached id, which must finish that resource and answer what
    /// `work` would have answered (same status, same body shape).
    func idempotent(
        _ context: RequestContext, owner: String? = nil, resume: @escaping (String) async throws -> HTTPResponse,
        _ work: @escaping (IdempotencyClaim?) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        try await idempotency.run(
            context, owner: owner, log: log, resume: { [log] resourceID in await Self.answer(context, log: log) { try await resume(resourceID) } }
        ) { [log] recoveryPoint in
            await Self.answer(context, log: log) { try await work(recoveryPoint) }
        }
    }

    /// The response of `work`, or of its error as the envelope; final unless the error is transient.
    private static func answer(
        _ context: RequestContext, log: @Sendable (JSONValue) -> Void, _ work: () async throws -> HTTPResponse
    ) async -> RouteAnswer {
        do {
            return RouteAnswer(response: try await work(), isFinal: true)
        } catch {
            logStoreFault(error, requestID: context.requestID, log: log)
            let apiError = APIError.from(error)
            return RouteAnswer(response: apiError.response(requestID: context.requestID), isFinal: !apiError.isTransient)
        }
    }

    /// One line for the operator when a request failed on a store fault: the client's 503 names
    /// the cause only, the line says which file and what SQLite said (no request data in it).
    static func logStoreFault(_ error: any Error, requestID: String, log: @Sendable (JSONValue) -> Void) {
        guard let fault = (error as? any StoreFaultError)?.storeFault, fault != .busy else { return }
        let message = (error as? any PayPanelError)?.message ?? fault.clientMessage
        log(.orderedObject([("store_fault", .string(fault.code)), ("request_id", .string(requestID)), ("message", .string(message))]))
    }

    /// The intent's path parameter.
    static func id(_ context: RequestContext) -> String {
        context.pathParameters["id"] ?? ""
    }
}
