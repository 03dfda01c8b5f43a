import Foundation
import PayPanel
import PayPanelHTTP

// The credentials the API's routes declare (`Router.group`, `router.post(…, credential:)`).
// Each is checked by the router after it matched the decoded path, from the request's head,
// before the body is read: docs/http-api.md, "Credentials".

/// `Authorization: Bearer sk_…`: an active secret key. The handler sees its `APIKeyRecord`.
struct SecretKeyCredential: RouteCredential {
    let keys: APIKeyAuthenticator

    var name: String { "secret key" }

    func authenticate(_ context: RequestContext) async throws -> (any Sendable)? {
        try await keys.authenticate(context.headers["authorization"])
    }
}

/// The device's credential on `/v1/checkouts/{id}/pay` and `/challenge`: that very checkout's
/// client secret as the bearer token. It can pay one checkout and do nothing else.
struct ClientSecretCredential: RouteCredential {
    let desk: CheckoutDesk

    var name: String { "checkout client secret" }

    func authenticate(_ context: RequestContext) async throws -> (any Sendable)? {
        let checkoutID = context.pathParameters["id"] ?? ""
        guard let secret = BearerToken.of(context), let owner = try await desk.authenticate(clientSecret: secret), owner == checkoutID else {
            throw APIError(
                status: .unauthorized, kind: .authentication, code: "invalid_client_secret",
                message: "pay with the checkout's client_secret as the Bearer token (Authorization: Bearer co_…_secret_…)",
                headers: ["WWW-Authenticate": "Bearer realm=\"paypanel\""])
        }
        return CheckoutClient(checkoutID: checkoutID)
    }
}

/// Who a client secret proved the caller to be: the device of this checkout.
struct CheckoutClient: Sendable {
    let checkoutID: String
}

/// The processor's webhooks: a `Stripe-Signature` under the configured secret. What can be
/// checked from the head (configured, header well formed, timestamp fresh) is checked here;
/// the HMAC over the body, by the route once the body is in.
struct ProcessorSignatureCredential: RouteCredential {
    let secret: ProcessorWebhookSecret
    let clock: any WallClock

    var name: String { "processor signature" }

    func authenticate(_ context: RequestContext) async throws -> (any Sendable)? {
        guard secret.current != nil else { throw ProcessorWebhooksAPI.notConfigured }
        do {
            try StripeWebhookSignature.checkHeader(context.headers["stripe-signature"], now: clock.now())
        } catch {
            throw APIError(status: .badRequest, kind: .authentication, code: error.code, message: error.message)
        }
        return nil
    }
}

/// The bearer token of `Authorization` (the scheme is case-insensitive, RFC 9110 §11.1).
enum BearerToken {
    static func of(_ context: RequestContext) -> String? {
        guard let header = context.headers["authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
