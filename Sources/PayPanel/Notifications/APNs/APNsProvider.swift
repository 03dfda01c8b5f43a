import Foundation

/// Sends alert pushes to APNs: the provider token, the request, and the answer read into an
/// action. It decides nothing about devices or retries over time: that is `PushOutbox`'s job;
/// here one `send` is one delivery attempt (with at most one resend after a refused token).
package struct APNsProvider: Sendable {
    package let tokens: APNsProviderTokenSource
    package let transport: any APNsTransport
    /// The environment of the device tokens this provider can reach: a token of the other
    /// environment is answered BadDeviceToken, so it is not sent at all.
    package let environment: APNsEnvironment
    /// `https://api.push.apple.com`, the sandbox, or (tests) any base URL.
    package let baseURL: String

    /// `baseURL` nil: the environment's Apple host.
    package init(tokens: APNsProviderTokenSource, transport: any APNsTransport, environment: APNsEnvironment, baseURL: String? = nil) {
        self.tokens = tokens
        self.transport = transport
        self.environment = environment
        let baseURL = baseURL ?? environment.baseURL
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    /// How one attempt ended.
    package enum Outcome: Sendable, Equatable {
        /// APNs answered; `action` says what to do (`.refreshProviderToken` here means the new
        /// token was refused too: fail loudly).
        case answered(APNsResponse)
        /// No answer (network, TLS, timeout): resend later with the same apns-id.
        case unreachable(String)
        /// The provider token could not be made (OpenSSL failed to sign).
        case signingFailed(String)
    }

    /// One attempt: POST with the current token; after a 403 token reason, once more with a
    /// new token (`APNsProviderTokenSource.replace`).
    package func send(_ notification: APNsNotification) async -> Outcome {
        var token: APNsProviderTokenSource.Issued
        do {
            token = try tokens.current()
        } catch {
            return .signingFailed(error.message)
        }
        var refreshed = false
        while true {
            let response: APNsResponse
            do {
                let answer = try await transport.post(
                    url: baseURL + notification.path,
                    headers: [("authorization", "bearer \(token.jwt)")] + notification.headers,
                    body: notification.payload)
                response = APNsResponse(status: answer.status, apnsID: answer.apnsID, body: answer.body)
            } catch {
                return .unreachable(error.message)
            }
            guard response.action == .refreshProviderToken, !refreshed else { return .answered(response) }
            refreshed = true
            do {
                guard let next = try tokens.replace(rejected: token) else { return .answered(response) }
                token = next
            } catch {
                return .signingFailed(error.message)
            }
        }
    }
}
