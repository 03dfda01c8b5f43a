import Foundation
import PayPanel
import PayPanelHTTP

/// The demo page's key (test mode only): a random `dk_test_…` made when `serve` starts, held in
/// this process's memory only (never stored, logged or printed), handed to the page by
/// `GET /demo/session`. Its only powers: create checkouts, read the checkouts it created, and
/// seal test tokens. Everything else it is refused with 403, so a page that leaks it leaks
/// nothing an operator's secret key guards (intents, refunds, captures, other checkouts).
public actor DemoKey: APIAlternativeCredential {
    public nonisolated let value: String
    /// The checkouts this key created, oldest first; bounded so a page creating checkouts in
    /// a loop cannot grow the process's memory without limit (the oldest are forgotten).
    private var created: [String] = []
    static let rememberedCheckouts = 1000

    public init(random: any RandomByteSource = SystemRandomBytes()) {
        value = "dk_test_" + Self.base62(random.bytes(24))
    }

    public nonisolated func authenticate(_ context: RequestContext, next: Middleware.Next) async throws -> HTTPResponse? {
        guard let bearer = Self.bearer(context), Self.sameBytes(bearer, value) else { return nil }
        let segments = context.pathSegments
        switch (context.method, segments.count) {
        case (.post, 2) where segments == ["v1", "checkouts"]:
            let response = await next(context)
            if response.status == .ok, let id = Self.checkoutID(response.body) { await remember(id) }
            return response
        case (.get, 3) where segments[0] == "v1" && segments[1] == "checkouts":
            guard await isMine(segments[2]) else { throw Self.refused("read only the checkouts it created") }
            return await next(context)
        case (.post, 3) where segments == ["v1", "demo", "tokens"]:
            return await next(context)
        default:
            throw Self.refused("create checkouts, read the checkouts it created and seal test tokens")
        }
    }

    private func remember(_ id: String) {
        created.append(id)
        if created.count > Self.rememberedCheckouts { created.removeFirst(created.count - Self.rememberedCheckouts) }
    }

    private func isMine(_ id: String) -> Bool { created.contains(id) }

    static func bearer(_ context: RequestContext) -> String? {
        guard let header = context.headers["authorization"], header.hasPrefix("Bearer ") else { return nil }
        return String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
    }

    /// Compares in time that depends on the lengths only, so timing tells nothing of the key.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    private static func checkoutID(_ body: [UInt8]) -> String? {
        guard let json = try? JSONParser().parse(body) else { return nil }
        return json["id"]?.stringValue
    }

    private static func refused(_ power: String) -> APIError {
        APIError(status: .forbidden, kind: .authentication, code: "demo_key_not_allowed",
                 message: "the demo key can only \(power); use a secret key (sk_…) for anything else")
    }

    private static func base62(_ bytes: [UInt8]) -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        // 248 is the largest multiple of 62 below 256: dropping bytes above it keeps every letter equally likely.
        return String(bytes.filter { $0 < 248 }.map { alphabet[Int($0) % 62] })
    }
}
