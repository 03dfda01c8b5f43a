import Foundation
import Synchronization

/// The provider authentication token (an ES256 JWT) every APNs request carries, reused for all
/// requests and refreshed on the injected clock.
///
/// Apple's rules: a token older than an hour is refused (403 `ExpiredProviderToken`); a new
/// token more often than once per 20 minutes is refused too (429 `TooManyProviderTokenUpdates`).
/// So a token is reused until it is `refreshAge` old (between the two), and a forced refresh
/// after a 403 token reason happens once per rejected token — requests that were rejected
/// together cause one refresh, not one each.
package final class APNsProviderTokenSource: Sendable {
    /// Age at which a token is replaced: after 20 minutes, well before 60.
    package static let refreshAge: TimeInterval = 45 * 60
    /// Apple refuses a new token sooner than this after the previous one.
    package static let minimumInterval: TimeInterval = 20 * 60

    package let key: APNsSigningKey
    private let clock: any WallClock
    /// The current token, and whether it was made by a forced refresh (after a 403).
    private let state = Mutex<(issued: Issued?, forced: Bool)>((nil, false))

    /// One issued token.
    package struct Issued: Sendable, Equatable {
        package let jwt: String
        package let issuedAt: Date
    }

    package init(key: APNsSigningKey, clock: any WallClock) {
        self.key = key
        self.clock = clock
    }

    /// The token to send now: the current one while younger than `refreshAge`, else a new one.
    package func current() throws(OpenSSLError) -> Issued {
        let now = clock.now()
        return try state.withLock { (state) throws(OpenSSLError) -> Issued in
            // A clock set back (before `issuedAt`) also makes a new token: its iat must not be in the future.
            if let token = state.issued, now.timeIntervalSince(token.issuedAt) < Self.refreshAge, now >= token.issuedAt {
                return token
            }
            let fresh = try make(at: now)
            state = (fresh, false)
            return fresh
        }
    }

    /// APNs refused `rejected` with a 403 token reason: a new token at once, unless another
    /// request already replaced it (then that one). Returns nil when the current token was made
    /// by such a forced refresh less than `minimumInterval` ago and is the one refused: a second
    /// refusal of a fresh token means the key, key id or team id is wrong, and more tokens would
    /// only earn 429 `TooManyProviderTokenUpdates`.
    package func replace(rejected: Issued) throws(OpenSSLError) -> Issued? {
        let now = clock.now()
        return try state.withLock { (state) throws(OpenSSLError) -> Issued? in
            if let token = state.issued, token != rejected { return token }
            if state.forced, let token = state.issued, now.timeIntervalSince(token.issuedAt) < Self.minimumInterval { return nil }
            let fresh = try make(at: now)
            state = (fresh, true)
            return fresh
        }
    }

    /// `base64url(header).base64url(claims).base64url(R‖S)`.
    private func make(at now: Date) throws(OpenSSLError) -> Issued {
        let header = JSONWriter.string(.orderedObject([("alg", "ES256"), ("kid", .string(key.keyID))]))
        let issuedAt = now.unixSeconds
        let claims = JSONWriter.string(.orderedObject([("iss", .string(key.teamID)), ("iat", .number(issuedAt))]))
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature = try ES256.sign(Array(signingInput.utf8), with: key.privateKey)
        return Issued(jwt: signingInput + "." + Base64URL.encode(signature), issuedAt: Date(timeIntervalSince1970: TimeInterval(issuedAt)))
    }
}

/// Base64url without padding (RFC 7515 §2), as JWTs use it.
package enum Base64URL {
    package static func encode(_ bytes: [UInt8]) -> String {
        var text = Base64.encode(bytes)
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Nil for characters outside the url-safe alphabet or an impossible length.
    package static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "=") }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard standard.utf8.count % 4 != 1 else { return nil }
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Base64.decode(standard)
    }
}
