import Foundation
import PayPanel
import PayPanelHTTP

/// `POST /v1/processor/webhooks`: the processor telling PayPanel what it decided later. Not
/// under the secret key: the `Stripe-Signature` (HMAC-SHA256 of `t.body` under
/// `--processor-webhook-secret`, 300 s tolerance on the server's clock) is the authentication,
/// checked over the raw bytes before anything is parsed. A forged or stale request is a 400
/// that changes nothing; a well-signed one is always a 200 (processors retry anything else),
/// whether applied, a duplicate, or about nothing PayPanel waits on.
public struct ProcessorWebhooksAPI: APIRouteProvider {
    static let path = "/v1/processor/webhooks"
    let service: CheckoutService
    /// Nil when `serve` was given none: the route then says how to configure it.
    let secret: String?
    let clock: any WallClock

    public init(service: CheckoutService, secret: String?, clock: any WallClock) {
        self.service = service
        self.secret = secret
        self.clock = clock
    }

    public func addRoutes(to router: inout Router) {
        router.post(Self.path) { [service, secret, clock] context in
            guard let secret else {
                throw APIError(
                    status: .serviceUnavailable, kind: .api, code: "processor_webhooks_not_configured",
                    message: "this server has no processor webhook secret: start it with --processor-webhook-secret (or $PAYPANEL_PROCESSOR_WEBHOOK_SECRET)")
            }
            do {
                _ = try StripeWebhookSignature.verify(
                    header: context.headers["stripe-signature"], body: context.body, secret: secret, now: clock.now())
            } catch let error as WebhookSignatureError {
                throw APIError(status: .badRequest, kind: .authentication, code: error.code, message: error.message)
            }
            let event = try ProcessorWebhookEvent(body: context.body)
            let result = try await service.applyProcessorWebhook(event)
            return APIResponse.json(.orderedObject([
                ("received", true), ("id", .string(event.id)), ("disposition", .string(result.disposition.rawValue)),
                ("payment_intent", .optional(result.intentID)), ("reason", .optional(result.reason)),
            ]))
        }
    }

    public var openAPIPaths: [(path: String, item: JSONValue)] {
        [(Self.path, OpenAPIDocument.item([
            "post": OpenAPIDocument.operation(
                "The processor's webhooks (Stripe's event shape, Stripe-Signature: t=…,v1=…); see docs/webhooks.md.", auth: false,
                body: OpenAPIDocument.schema([:]),
                responses: ["200": "{received, id, disposition: applied|duplicate|ignored|deferred}", "400": "bad signature, stale timestamp or unreadable event"]),
        ]))]
    }
}
