import Foundation
import PayPanelHTTP

/// A credential other than a secret key that a front end accepts on a few `/v1` routes: the
/// demo page's key in test mode. The authentication middleware asks each one before it checks
/// for a secret key, so a credential can only narrow what a request may do, never skip the
/// check for a request that does not carry it.
public protocol APIAlternativeCredential: Sendable {
    /// Nil when the request does not carry this credential (the secret-key check runs next).
    /// Otherwise the credential's own answer: it throws for a call it may not make (an
    /// `APIError`-like `HTTPResponseError`), or runs `next` and may look at the response.
    func authenticate(_ context: RequestContext, next: Middleware.Next) async throws -> HTTPResponse?
}
