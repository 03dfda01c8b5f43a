import PayPanel

/// The OpenAPI path items of the test-mode demo routes (present only when `serve --test-root`).
enum DemoOpenAPI {
    typealias Doc = OpenAPIDocument

    static var paths: [(path: String, item: JSONValue)] {
        let page = { (what: String, mediaType: String) in
            Doc.item(["get": Doc.operation("Test mode only: \(what) of the device simulator.", responses: ["200": what, "404": "not in test mode"], mediaType: mediaType)])
        }
        return [
            // Without --test-root the page itself is a 404 page that says how to turn the simulator on.
            ("/demo", Doc.item(["get": Doc.operation(
                "Test mode only: the HTML page of the device simulator; in other modes a page that says how to enable it.",
                responses: ["200": "the HTML page", "404": "not in test mode: a page that says to restart serve with --test-root"],
                mediaType: "text/html", pageStatuses: ["404"])])),
            ("/demo/demo.css", page("the stylesheet", "text/css")),
            ("/demo/demo.js", page("the script", "text/javascript")),
            ("/demo/session", Doc.item([
                "get": Doc.operation(
                    "Test mode only: the demo key (dk_test_…, in memory; it can only create checkouts, read its own and seal test tokens) and the test wallet's cards (network, last four; no numbers).",
                    responses: ["200": "{demo_key, wallet}", "404": "not in test mode"], returns: OpenAPISchemas.ref("DemoSession")),
            ])),
            ("/v1/demo/tokens", Doc.item([
                "post": Doc.operation(
                    "Test mode only, with the demo key: an Apple Pay token sealed with PayPanel's test identity for a test wallet card, as 'paypanel token seal' makes.",
                    body: Doc.schema([
                        "card": Doc.string("a wallet card id from /demo/session", length: 1...40), "amount": Doc.integer("minor units", 1...DemoSite.maximumAmount),
                        "currency": Doc.currency,
                    ], required: ["card", "amount"]),
                    responses: ["200": "{payment_token}", "400": "unknown card, bad amount or currency", "403": "not the demo key", "404": "not in test mode"], returns: OpenAPISchemas.ref("DemoToken")),
            ])),
        ]
    }
}
