import Foundation
import Testing
import TestSupport

@Suite struct NotifyBuildCLITests {
    @Test func theDefaultPayloadIsAPaymentActionWithTheSeedPanel() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "build", "--json"], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.count == 1)
        let payload = try NotifyCLI.object(result)
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["category"] as? String == "PAYMENT_ACTION")
        #expect(aps["mutable-content"] as? Int == 1)
        #expect(aps["thread-id"] as? String == "panel-merchant.com.sample.ApplePayAction")
        let panel = try #require(payload["panel"] as? [String: Any])
        #expect(panel["amountOptions"] as? [Int] == [500, 1000, 2000])
        #expect(panel["merchantIdentifier"] as? String == "merchant.com.sample.ApplePayAction")
        // What build prints, validate accepts.
        let validated = try CLIRunner.run(["notify", "validate", "-"], stdin: result.stdout, in: directory)
        #expect(validated.status == 0, "\(validated)")
        #expect(validated.stdout.hasPrefix("-: valid payment-action payload ("))
    }

    @Test func textOrderAndPanelOptionsAreUsed() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "build", "--panel", RepositoryPaths.fixture("panels/seed.json"), "--title", "Coffee",
                                        "--subtitle", "Order 42", "--body", "Pay here", "--order", "42"], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.count > 1)  // indented by default
        let payload = try NotifyCLI.object(result)
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["alert"] as? [String: String] == ["title": "Coffee", "subtitle": "Order 42", "body": "Pay here"])
        #expect(aps["thread-id"] as? String == "order-42")
        #expect((payload["panel"] as? [String: Any])?["orderReference"] as? String == "42")
    }

    @Test func aBodyTooLargeForAPNsIsRefusedWithTheSize() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "build", "--body", String(repeating: "x", count: 4000)], in: directory)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("Error: cannot build the payment-action payload: $: the payload is "))
        #expect(result.stderr.contains("bytes as compact JSON (UTF-8); APNs accepts at most 4096"))
    }

    @Test func anInvalidPanelIsReportedLineByLine() throws {
        let directory = try TemporaryDirectory()
        let panel = try directory.write("panel.json", #"{"merchantIdentifier": "merchant.com.x", "countryCode": "usa", "currencyCode": "USD", "supportedNetworks": ["visa"], "merchantCapabilities": ["supports3DS"], "productLabel": "P"}"#)
        let result = try CLIRunner.run(["notify", "build", "--panel", panel], in: directory)
        #expect(result.status == 1)
        #expect(result.stderrLines.first?.hasPrefix("error: countryCode: ") == true, "\(result)")
    }
}

@Suite struct NotifyValidateCLITests {
    @Test(arguments: ["payment-panel.json", "payment-panel-update.json", "media-image.json", "media-video.json",
                      "media-gif.json", "media-fake-png.json", "reveal.json"])
    func validFixturesExitZero(name: String) throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "validate", NotifyCLI.fixture(name)], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.contains(": valid "))
    }

    @Test func everyWronglyTypedKeyGetsOneErrorLine() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "validate", NotifyCLI.fixture("invalid-types.json")], in: directory)
        #expect(result.status == 1)
        #expect(result.stderrLines == [
            "error: aps.alert.title: must be a string, not a number",
            "error: aps.alert.loc-args[1]: must be a string, not a number",
            "error: aps.badge: must be an integer, not a string",
            "error: aps.sound: must be a sound name or an object with critical, name and volume, not a number",
            "error: aps.thread-id: must be a string, not a number",
            "error: aps.content-available: must be the number 1 (or 0), not true: APNs does not accept a JSON boolean here",
            "error: aps.mutable-content: must be 1 (or 0), not 2",
            "error: aps.interruption-level: \"loud\" is not an interruption level: use one of passive, active, time-sensitive, critical",
            "error: aps.relevance-score: must be a number from 0 to 1, not 1.5",
            "error: payload: must be a string holding a JSON object, not an object: Getui sends it as a JSON object encoded in a string; encode the object as a string",
        ])
        #expect(result.stdout.hasSuffix("invalid push payload: 10 errors (626 of 4096 bytes)\n"))
    }

    @Test func theOversizedFixtureFailsWithItsSize() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "validate", NotifyCLI.fixture("oversized.json")], in: directory)
        #expect(result.status == 1)
        #expect(result.stderrLines == ["error: $: the payload is 4492 bytes as compact JSON (UTF-8); APNs accepts at most 4096: shorten it by 396 bytes (the body, or the panel's labels)"])
    }

    @Test func aMalformedMediaStringIsAnError() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "validate", NotifyCLI.fixture("media-malformed.json")], in: directory)
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderrLines.first?.hasPrefix("error: payload: the string is not valid JSON: invalid JSON at line 1, column ") == true)
    }

    @Test func jsonOutputCarriesTheErrorsAndTheSize() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["notify", "validate", "--json", NotifyCLI.fixture("oversized.json")], in: directory)
        #expect(result.status == 1)
        let report = try NotifyCLI.object(result)
        #expect(report["valid"] as? Bool == false)
        #expect(report["byteCount"] as? Int == 4492)
        #expect(report["maximumByteCount"] as? Int == 4096)
        #expect((report["errors"] as? [[String: String]])?.first?["path"] == "$")
    }

    @Test func notJSONAndAMissingFileAreReported() throws {
        let directory = try TemporaryDirectory()
        let garbage = try CLIRunner.run(["notify", "validate", "-"], stdin: "{\"aps\": ", in: directory)
        #expect(garbage.status == 1)
        #expect(garbage.stderrLines.first?.hasPrefix("error: $: invalid JSON at line 1, column 9") == true, "\(garbage)")
        let missing = try CLIRunner.run(["notify", "validate", "nope.json"], in: directory)
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: cannot read the notification payload nope.json: no such file; check the path\n")
    }
}
