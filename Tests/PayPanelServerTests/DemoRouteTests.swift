import Foundation
import PayPanel
import Testing
import TestSupport

/// The device simulator's routes over a real `paypanel serve`: present with `--test-root` only,
/// the page's security headers, the demo key's narrow powers, and the bounded token call; and
/// the operator console's page, served in every mode.
@Suite struct DemoRouteTests {
    static let csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    @Test func withoutTestRootThereIsNoPageNoSessionAndNoTokenCall() async throws {
        let server = try await ServerProcess.start()
        for path in ["/demo", "/demo/demo.js", "/demo/demo.css", "/demo/session"] {
            #expect(try await server.request("GET", path, key: "").status == 404, "\(path)")
        }
        // The page says how to turn the simulator on, as a page, not a bare JSON error.
        let page = try await server.request("GET", "/demo", key: "")
        #expect(page.headers["content-type"] == "text/html; charset=utf-8" && page.headers["content-security-policy"] == Self.csp)
        #expect(page.text.contains("paypanel serve --test-root") && page.text.contains("The device simulator is off"))
        let session = try await server.request("GET", "/demo/session", key: "")
        #expect(session.errorCode == "demo_off" && session.text.contains("restart serve with --test-root"), "\(session.text)")
        // With the server's own secret key the token route does not exist either; it says why.
        let tokens = try await server.request("POST", "/v1/demo/tokens", json: #"{"card":"card_4242","amount":1000}"#)
        #expect(tokens.status == 404 && tokens.errorCode == "demo_off", "\(tokens.text)")
        // A demo key from an earlier run (the page was open when serve restarted without
        // --test-root) is told to restart serve with --test-root, not to create a secret key.
        let stale = try await server.request("POST", "/v1/checkouts", json: "{}", key: "dk_test_" + String(repeating: "A", count: 30))
        #expect(stale.status == 401 && stale.text.contains("restart serve with --test-root") && !stale.text.contains("keys create"), "\(stale.text)")
        // The operator console is served in every mode (it holds no secret), with the same headers.
        for path in ["/console", "/console/console.js", "/console/console.css"] {
            let response = try await server.request("GET", path, key: "")
            #expect(response.status == 200 && response.headers["content-security-policy"] == Self.csp, "\(path)")
            #expect(response.headers["x-content-type-options"] == "nosniff", "\(path)")
        }
        let console = try await server.request("GET", "/console", key: "")
        #expect(console.text.contains(#"<script src="/console/console.js" defer></script>"#) && !console.text.contains("<script>"))
        #expect(await server.terminate() == 0)
    }

    @Test func thePageAndItsFilesCarryTheContentSecurityPolicyAndNosniff() async throws {
        let server = try await ServerProcess.start(arguments: ["--test-root"])
        let types = ["/demo": "text/html; charset=utf-8", "/demo/demo.js": "text/javascript; charset=utf-8",
                     "/demo/demo.css": "text/css; charset=utf-8"]
        for (path, type) in types {
            let response = try await server.request("GET", path, key: "")
            #expect(response.status == 200, "\(path)")
            #expect(response.headers["content-type"] == type, "\(path)")
            #expect(response.headers["content-security-policy"] == Self.csp, "\(path)")
            #expect(response.headers["x-content-type-options"] == "nosniff", "\(path)")
        }
        let page = try await server.request("GET", "/demo", key: "")
        // No inline script or style: the policy would block them, so the page must not need any.
        #expect(page.text.contains(#"<script src="/demo/demo.js" defer></script>"#))
        #expect(!page.text.contains("<script>") && !page.text.contains("<style") && !page.text.contains(" style=") && !page.text.contains("onclick"))
        #expect(!page.text.contains("http://") && !page.text.contains("https://"), "no outside origin")
        #expect(await server.terminate() == 0)
    }

    @Test func theDemoKeyCreatesAndReadsOnlyItsOwnCheckoutsAndSealsTokensThatPay() async throws {
        let server = try await ServerProcess.start(arguments: ["--test-root"])
        let session = try await server.request("GET", "/demo/session", key: "")
        #expect(session.status == 200 && session.headers["cache-control"] == "no-store")
        #expect(session.headers["access-control-allow-origin"] == nil, "no other origin may read the key")
        let demoKey = session["demo_key"]?.stringValue ?? ""
        #expect(demoKey.hasPrefix("dk_test_") && demoKey.count > 24)
        let cards = session["wallet"]?.arrayValue ?? []
        #expect(cards.contains { $0["id"] == "card_4242" && $0["network"] == "visa" && $0["last4"] == "4242" })
        #expect(!session.text.contains("4242424242424242"), "no card number in the session")

        let created = try await server.request("POST", "/v1/checkouts", json: "{}", key: demoKey)
        #expect(created.status == 200, "\(created.text)")
        #expect(try await server.request("GET", "/v1/checkouts/\(created.id)", key: demoKey).status == 200)
        let other = try await server.request("POST", "/v1/checkouts", json: "{}")
        let notMine = try await server.request("GET", "/v1/checkouts/\(other.id)", key: demoKey)
        #expect(notMine.status == 403 && notMine.errorCode == "demo_key_not_allowed", "\(notMine.text)")
        for (method, path) in [("GET", "/v1/payment_intents"), ("POST", "/v1/checkouts/\(created.id)"),
                               ("POST", "/v1/checkouts/\(created.id)/cancel"), ("POST", "/v1/refunds")] {
            let refused = try await server.request(method, path, json: "{}", key: demoKey)
            #expect(refused.status == 403 && refused.errorCode == "demo_key_not_allowed", "\(method) \(path): \(refused.text)")
        }
        // The token call is the device's: the demo key only, not a secret key.
        let withSecretKey = try await server.request("POST", "/v1/demo/tokens", json: #"{"card":"card_4242","amount":1000}"#)
        #expect(withSecretKey.status == 403 && withSecretKey.errorCode == "demo_key_required", "\(withSecretKey.text)")

        let sealed = try await server.request("POST", "/v1/demo/tokens", json: #"{"card":"card_4242","amount":1000,"currency":"USD"}"#, key: demoKey)
        #expect(sealed.status == 200, "\(sealed.text)")
        let token = JSONWriter.string(sealed["payment_token"] ?? .null)
        let secret = created["client_secret"]?.stringValue ?? ""
        let paid = try await server.request("POST", "/v1/checkouts/\(created.id)/pay", json: #"{"amount":1000,"payment_token":\#(token)}"#, key: secret)
        #expect(paid.status == 200 && paid["sheet"] == "success", "\(paid.text)")
        #expect(await server.terminate() == 0)
        #expect(!server.stderr.contains(demoKey), "the demo key is never logged")
    }

    @Test func theTokenCallRefusesUnknownCardsAndUnboundedAmountsWithClearErrors() async throws {
        let server = try await ServerProcess.start(arguments: ["--test-root"])
        let demoKey = try await server.request("GET", "/demo/session", key: "")["demo_key"]?.stringValue ?? ""
        let cases: [(String, String)] = [
            (#"{"card":"card_0000","amount":1000}"#, "unknown_card"),
            (#"{"card":"4242424242424242","amount":1000}"#, "unknown_card"),
            (#"{"card":"card_4242","amount":0}"#, "amount_out_of_range"),
            (#"{"card":"card_4242","amount":100000001}"#, "amount_out_of_range"),
            (#"{"card":"card_4242","amount":1000,"currency":"usd-dollars"}"#, "invalid_currency"),
            (#"{"card":"card_4242"}"#, "parameter_missing"),
            (#"{"card":"card_4242","amount":1000,"extra":1}"#, "parameter_unknown"),
            (#"[1,2,3]"#, "invalid_json"),
        ]
        for (body, code) in cases {
            let response = try await server.request("POST", "/v1/demo/tokens", json: body, key: demoKey)
            #expect(response.status == 400 && response.errorCode == code, "\(body): \(response.text)")
            #expect(!response.text.contains("4242424242424242"), "a card number is never echoed")
        }
        // A long card id is refused with a message of bounded size (the id is cut, not echoed whole).
        let long = try await server.request("POST", "/v1/demo/tokens", json: #"{"card":""# + String(repeating: "a", count: 10_000) + #"","amount":1}"#, key: demoKey)
        #expect(long.status == 400 && long.errorCode == "unknown_card" && long.text.utf8.count < 600, "\(long.text.prefix(300))")
        #expect(await server.terminate() == 0)
    }
}
