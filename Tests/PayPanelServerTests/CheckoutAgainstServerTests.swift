import Foundation
import PayPanel
import Testing
import TestSupport

/// `paypanel checkout --server`: the device's checkout played against a real `paypanel serve`
/// (port 0), scripted in line mode: the checkout is created with the secret key, a decline is
/// answered on the sheet, a sealed Apple Pay token pays through `/pay` with the client secret,
/// and the intent is then checked through the API. Then the clear refusals: no server there,
/// a bad key, a server that does not trust the test root.
@Suite struct CheckoutAgainstServerTests {
    static let now = "2026-11-29T12:00:00Z"

    /// `script: nil` gives no standard input: a run that stops before reading it must not get
    /// its input written into a closed pipe (SIGPIPE would end the test process).
    static func checkout(_ server: ServerProcess, _ script: String?, key: String? = nil, extra: [String] = []) async throws -> CLIResult {
        let url = "http://127.0.0.1:\(server.port)"
        let directory = server.directory
        let environment = ["PAYPANEL_API_KEY": key ?? server.key]
        return try await onThread {
            try CLIRunner.run(["checkout", "--server", url, "--json", "--now", now] + extra, stdin: script, in: directory,
                              environment: environment, timeout: 120)
        }
    }

    static func events(_ result: CLIResult) -> [JSONValue] {
        result.stdoutLines.compactMap { try? JSONParser().parse($0) }
    }

    @Test func aScriptedCheckoutDeclinesThenPaysWithASealedTokenThroughPay() async throws {
        let server = try await ServerProcess.start(arguments: ["--test-root", "--now", Self.now])
        let result = try await Self.checkout(server, "expand\nbuy\ncard 4\nconfirm\ncard 1\nconfirm\ndone\n", extra: ["--capture", "manual"])
        #expect(result.status == 0, "\(result)")
        let events = Self.events(result)
        #expect(events.first?["event"] == "test_mode")
        #expect(events.contains { $0["event"] == "declined" && $0["declineCode"] == "insufficient_funds" }, "\(result.stdout)")
        #expect(events.filter { $0["event"] == "token_sealed" }.count == 2)
        let exit = try #require(events.last)
        #expect(exit["event"] == "exit" && exit["reason"] == "paid", "\(exit)")
        let intentID = try #require(exit["intentId"]?.stringValue)
        #expect(result.stderr.contains("checkout co_"), "\(result.stderr)")

        let intent = try await server.request("GET", "/v1/payment_intents/\(intentID)")
        #expect(intent["status"] == "requires_capture" && intent["amount"] == 500, "\(intent.text)")
        let attempts = intent["attempts"]?.arrayValue ?? []
        #expect(attempts.map { $0["source"]?.stringValue } == ["apple_pay", "apple_pay"], "\(intent.text)")
        #expect(attempts.first?["failure"]?["decline_code"] == "insufficient_funds")
        // Only the device's pay call paid: the access log shows two /pay requests with 200.
        let pays = server.stderr.split(separator: "\n").filter { $0.contains(#"/pay""#) && $0.contains(#""status":200"#) }
        #expect(pays.count == 2, "\(server.stderr)")
        #expect(await server.terminate() == 0)
        #expect(!server.stderr.contains("_secret_"), "no client secret in the log")
        #expect(!result.stdout.contains("4000000000009995") && !result.stderr.contains("_secret_"))
    }

    @Test func payInAppWorksWithoutTestRootAndApplePaySaysTheServerMustTrustIt() async throws {
        let server = try await ServerProcess.start(arguments: ["--now", Self.now])
        let refused = try await Self.checkout(server, "expand\nbuy\nconfirm\ndone\n")
        #expect(refused.status == 1, "\(refused)")
        let failed = Self.events(refused).first { $0["event"] == "error" }
        #expect(failed?["message"]?.stringValue?.contains("--test-root") == true, "\(refused.stdout)")

        let paid = try await Self.checkout(server, "expand\napp\ncard 2\nconfirm\ndone\n")
        #expect(paid.status == 0, "\(paid)")
        let exit = try #require(Self.events(paid).last)
        #expect(exit["reason"] == "paid", "\(paid.stdout)")
        let intent = try await server.request("GET", "/v1/payment_intents/\(exit["intentId"]?.stringValue ?? "")")
        #expect(intent["status"] == "succeeded" && intent["attempts"]?.arrayValue?.first?["source"] == "card", "\(intent.text)")
        #expect(await server.terminate() == 0)
    }

    @Test func threeDSecureIsAnsweredByTheMerchantsChallengeCallNotByPay() async throws {
        let server = try await ServerProcess.start(arguments: ["--test-root", "--now", Self.now])
        // Over the wire: /pay cannot run a challenge; it says so and the intent waits for it.
        let checkout = try await server.request("POST", "/v1/checkouts", json: "{}")
        let secret = checkout["client_secret"]?.stringValue ?? ""
        let card = #"{"amount":500,"card":{"number":"4000002760003184","exp_month":12,"exp_year":2030}}"#
        let asked = try await server.request("POST", "/v1/checkouts/\(checkout.id)/pay", json: card, key: secret)
        #expect(asked["sheet"] == "failure" && asked.json["error"]?["code"] == "authentication_required", "\(asked.text)")
        let intentID = asked["payment_intent"]?.stringValue ?? ""
        #expect(try await server.request("GET", "/v1/payment_intents/\(intentID)")["status"] == "requires_action")
        let again = try await server.request("POST", "/v1/checkouts/\(checkout.id)/pay", json: card, key: secret)
        #expect(again.status == 409 && again.errorCode == "payment_in_progress", "\(again.text)")

        // The CLI's device shows the challenge and sends its answer as the merchant would.
        let result = try await Self.checkout(server, "expand\nbuy\ncard 7\nconfirm\npass\ndone\n")
        #expect(result.status == 0, "\(result)")
        let events = Self.events(result)
        #expect(events.contains { $0["event"] == "challenge" }, "\(result.stdout)")
        let exit = try #require(events.last)
        #expect(exit["reason"] == "paid" && exit["status"] == "succeeded", "\(exit)")
        #expect(await server.terminate() == 0)
        let challenges = server.stderr.split(separator: "\n").filter { $0.contains(#"/challenge""#) && $0.contains(#""status":200"#) }
        #expect(challenges.count == 1, "\(server.stderr)")
    }

    @Test func aBadKeyAndAnUnreachableServerAreClearErrors() async throws {
        let server = try await ServerProcess.start(arguments: ["--now", Self.now])
        let badKey = try await Self.checkout(server, nil, key: "sk_not_a_key")
        #expect(badKey.status == 1 && badKey.stderr.contains("refused the API key (401)"), "\(badKey)")
        #expect(!badKey.stderr.contains("sk_not_a_key"))
        #expect(await server.terminate() == 0)
        // The server is gone: nothing listens on its port any more.
        let gone = try await Self.checkout(server, nil)
        #expect(gone.status == 1 && gone.stderr.contains("cannot reach the PayPanel server at http://127.0.0.1:\(server.port)"), "\(gone)")
        #expect(gone.stderr.contains("is paypanel serve running"))
    }
}
