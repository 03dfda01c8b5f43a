import Foundation
import PayPanel
import PayPanelHTTP
import Synchronization

/// The processor's webhook secret as `serve` knows it: given at start
/// (`--processor-webhook-secret`), or learnt a moment after start by registering with the
/// processor (`--public-url`). In memory only; `description` never shows it.
public final class ProcessorWebhookSecret: Sendable, CustomStringConvertible {
    private let value: Mutex<String?>

    public init(_ secret: String? = nil) {
        value = Mutex(secret)
    }

    public func set(_ secret: String) {
        value.withLock { $0 = secret }
    }

    public var current: String? { value.withLock { $0 } }

    public var description: String { current == nil ? "(none)" : "whsec_…" }
}

/// `POST /v1/processor/webhooks`: the processor telling PayPanel what it decided later. Not
/// under the secret key: the `Stripe-Signature` (HMAC-SHA256 of `t.body` under
/// `--processor-webhook-secret`, 300 s tolerance on the server's clock) is the authentication,
/// checked over the raw bytes before anything is parsed. A forged or stale request is a 400
/// that changes nothing; a well-signed one is a 200 (processors retry anything else) whether
/// applied, a duplicate, or about nothing PayPanel waits on — except one about a call whose own
/// request is still waiting for its answer (`deferred`): that is a 409, not recorded, so the
/// processor delivers it again later, when it settles the call if the answer never came.
public struct ProcessorWebhooksAPI: APIRouteProvider {
    static let path = "/v1/processor/webhooks"
    let service: PaymentService
    /// Empty when `serve` was given none (yet): the route then says how to configure it.
    let secret: ProcessorWebhookSecret
    let clock: any WallClock

    public init(service: PaymentService, secret: String?, clock: any WallClock) {
        self.init(service: service, secret: ProcessorWebhookSecret(secret), clock: clock)
    }

    public init(service: PaymentService, secret: ProcessorWebhookSecret, clock: any WallClock) {
        self.service = service
        self.secret = secret
        self.clock = clock
    }

    public func addRoutes(to router: inout Router) {
        router.post(Self.path, credential: ProcessorSignatureCredential(secret: secret, clock: clock)) { [service, secret, clock] context in
            // The credential checked the header's form and age before the body was read; the
            // signature over the body is checked now that it is here.
            guard let secret = secret.current else { throw Self.notConfigured }
            do {
                _ = try StripeWebhookSignature.verify(
                    header: context.headers["stripe-signature"], body: context.body, secret: secret, now: clock.now())
            } catch let error as WebhookSignatureError {
                throw APIError(status: .badRequest, kind: .authentication, code: error.code, message: error.message)
            }
            let event = try ProcessorWebhookEvent(body: context.body)
            let result = try await service.applyProcessorWebhook(event)
            let answer: JSONValue = .orderedObject([
                ("received", .bool(result.disposition != .deferred)), ("id", .string(event.id)), ("disposition", .string(result.disposition.rawValue)),
                ("payment_intent", .optional(result.intentID)), ("reason", .optional(result.reason)),
            ])
            // Deferred: not recorded; a non-2xx makes the processor deliver it again later.
            return APIResponse.json(answer, status: result.disposition == .deferred ? .conflict : .ok)
        }
    }

    /// 503 while `serve` has no secret to check signatures with.
    static let notConfigured = APIError(
        status: .serviceUnavailable, kind: .api, code: "processor_webhooks_not_configured",
        message: "this server has no processor webhook secret: start it with --processor-webhook-secret (or $PAYPANEL_PROCESSOR_WEBHOOK_SECRET)")

    public var openAPIPaths: [(path: String, item: JSONValue)] {
        [(Self.path, OpenAPIDocument.item([
            "post": OpenAPIDocument.operation(
                "The processor's webhooks (Stripe's event shape, Stripe-Signature: t=…,v1=…); see docs/webhooks.md.",
                body: OpenAPIDocument.schema([:]),
                responses: ["200": "{received, id, disposition: applied|duplicate|ignored}", "409": "deferred: the call's own request is still waiting for its answer; deliver again later", "400": "bad signature, stale timestamp or unreadable event"], returns: OpenAPISchemas.ref("ProcessorWebhookReceipt"), answers: ["409": OpenAPISchemas.ref("ProcessorWebhookReceipt")]),
        ]))]
    }
}
