import Foundation
import PayPanel
import PayPanelHTTP

/// What `serve` without `--test-root` answers on the device simulator's routes: still 404 (the
/// simulator and its demo key do not exist in this mode), but with words that say how to turn
/// it on, because someone who opens `/demo` on the wrong server should not have to guess from a
/// bare JSON error. The page is static text with the same headers as the real one.
public struct DemoSiteOff: APIRouteProvider {
    public init() {}

    static let howToEnable = "the device simulator is off: this server was started without --test-root; restart serve with --test-root ('paypanel serve --test-root', test mode only, never in production) and reload /demo"

    public func addRoutes(to router: inout Router) {
        router.get("/demo", credential: .none) { _ in Self.page }
        router.get("/demo/session", credential: .none) { _ in throw Self.off }
        router.post("/v1/demo/tokens", credential: .none) { _ in throw Self.off }
    }

    static var off: APIError {
        APIError(status: .notFound, kind: .invalidRequest, code: "demo_off", message: howToEnable)
    }

    static var page: HTTPResponse {
        var headers = DemoSite.pageHeaders
        headers.replaceOrAdd(name: "Content-Type", value: "text/html; charset=utf-8")
        let html = """
        <!doctype html>
        <html lang="en">
        <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>PayPanel device simulator: off</title></head>
        <body>
        <main>
        <h1>The device simulator is off</h1>
        <p>This server was started without <code>--test-root</code>, so it has no device simulator
        and no demo key. The simulator pays with test Apple Pay tokens, which only a server in test
        mode accepts.</p>
        <p>To use it, restart the server in test mode (never in production) and reload this page:</p>
        <pre><code>paypanel serve --test-root</code></pre>
        <p>The operator console works in every mode: <a href="/console">/console</a>.</p>
        </main>
        </body>
        </html>
        """
        return HTTPResponse(status: .notFound, headers: headers, body: Array(html.utf8))
    }

    /// The same paths as the simulator's, each documented with its 404 "not in test mode".
    public var openAPIPaths: [(path: String, item: JSONValue)] { DemoOpenAPI.paths }
}
