import Foundation
import PayPanel
import PayPanelHTTP

/// The demo page's key (test mode only): a random `dk_test_…` made when `serve` starts, held in
/// this process's memory only (never stored, logged or printed), handed to the page by
/// `GET /demo/session`. Its only powers: create checkouts, read the checkouts it created, and
/// seal test tokens — each a credential of its own (`credential(for:)`) that only the routes
/// with that power declare. Anywhere else it is not a secret key, so it is refused, and a page
/// that leaks it leaks nothing an operator's secret key guards (intents, refunds, captures,
/// other checkouts).
public actor DemoKey {
    /// What the demo key may do, one route's worth each.
    public enum Power: Sendable {
        case createCheckouts, readOwnCheckouts, sealTokens
    }

    public nonisolated let value: String
    /// How every demo key begins, so a stale one can be told apart from a wrong secret key.
    static let prefix = "dk_test_"
    /// The checkouts this key created, oldest first; bounded so a page creating checkouts in
    /// a loop cannot grow the process's memory without limit (the oldest are forgotten).
    private var created: [String] = []
    static let rememberedCheckouts = 1000

    public init(random: any RandomByteSource = SystemRandomBytes()) {
        value = Self.prefix + Base62.random(length: 24, from: random)
    }

    /// The credential of the routes that grant `power`.
    public nonisolated func credential(for power: Power) -> some AlternativeRouteCredential {
        DemoKeyCredential(key: self, power: power)
    }

    /// Offered before the secret key on every other route: a demo key there is refused with a
    /// 403 that says what it may do, rather than a puzzling "invalid API key".
    public nonisolated var refusedElsewhere: some AlternativeRouteCredential {
        DemoKeyRefusal()
    }

    /// Records a checkout this key created, so it may read it back.
    func remember(_ id: String) {
        created.append(id)
        if created.count > Self.rememberedCheckouts { created.removeFirst(created.count - Self.rememberedCheckouts) }
    }

    func isMine(_ id: String) -> Bool { created.contains(id) }

    /// Compares in time that depends on the lengths only, so timing tells nothing of the key.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}

/// The demo key on a route that grants one of its powers. A request carries it when its bearer
/// token is a demo key (`dk_…`); a wrong one is a 401, and reading a checkout it did not create
/// a 403.
struct DemoKeyCredential: AlternativeRouteCredential {
    let key: DemoKey
    let power: DemoKey.Power

    var name: String { "demo key" }

    func isCarried(by context: RequestContext) -> Bool {
        BearerToken.of(context)?.hasPrefix("dk_") == true
    }

    func authenticate(_ context: RequestContext) async throws -> (any Sendable)? {
        // Only reached without a demo key when the route takes nothing else (sealing tokens):
        // no credential at all is a 401, another kind of credential a 403.
        guard let bearer = BearerToken.of(context) else {
            throw APIError(status: .unauthorized, kind: .authentication, code: "demo_key_required",
                           message: "this is the demo page's call: send the demo key from GET /demo/session as the Bearer token",
                           headers: ["WWW-Authenticate": "Bearer realm=\"paypanel\""])
        }
        guard bearer.hasPrefix("dk_") else {
            throw APIError(status: .forbidden, kind: .authentication, code: "demo_key_required",
                           message: "this is the demo page's call: it takes the demo key from GET /demo/session, not a secret key")
        }
        guard DemoKey.sameBytes(bearer, key.value) else {
            throw APIError(
                status: .unauthorized, kind: .authentication, code: "invalid_demo_key",
                message: "invalid demo key: reload the demo page (GET /demo/session hands out this server's key)",
                headers: ["WWW-Authenticate": "Bearer realm=\"paypanel\""])
        }
        if power == .readOwnCheckouts, let id = context.pathParameters["id"], !(await key.isMine(id)) {
            throw APIError(
                status: .forbidden, kind: .authentication, code: "demo_key_not_allowed",
                message: "the demo key can only read the checkouts it created; use a secret key (sk_…) for anything else")
        }
        return DemoCaller(key: key)
    }
}

/// Who a demo key proved the caller to be: the demo page.
struct DemoCaller: Sendable {
    let key: DemoKey
}

/// A demo key on a route that grants it nothing: always a 403 naming what it can do.
struct DemoKeyRefusal: AlternativeRouteCredential {
    var name: String { "demo key (refused)" }

    func isCarried(by context: RequestContext) -> Bool {
        BearerToken.of(context)?.hasPrefix("dk_") == true
    }

    func authenticate(_ context: RequestContext) async throws -> (any Sendable)? {
        throw APIError(status: .forbidden, kind: .authentication, code: "demo_key_not_allowed",
                       message: "the demo key can only create checkouts, read the checkouts it created and seal test tokens; use a secret key (sk_…) for anything else")
    }
}
