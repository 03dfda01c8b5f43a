import Foundation
import TestSupport
import Testing

@Suite struct RequestCommandTests {
    @Test func theSeedRequestValidatesWithTheProductLabelWarning() throws {
        let dir = try TemporaryDirectory()
        let result = try CLIRunner.run(["request", "validate", RepositoryPaths.fixture("requests/seed.json")], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderrLines.count == 1)
        #expect(result.stderrLines.first?.hasPrefix("warning: paymentSummaryItems[0].label: ") == true)
        #expect(result.stdout.contains("valid payment request for 10.00 USD (1 warning)"))
    }

    @Test(arguments: ["merchant-named-total.json", "kwd-three-decimals.json", "china-unionpay-emv.json"])
    func validFixturesPass(name: String) throws {
        let dir = try TemporaryDirectory()
        let result = try CLIRunner.run(["request", "validate", RepositoryPaths.fixture("requests/\(name)")], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stderr.contains("error:"))
    }

    @Test(arguments: [
        ("above-maximum.json", 1), ("amount-as-number.json", 1), ("everything-wrong.json", 8), ("jpy-fraction.json", 1),
        ("negative-zero-total.json", 1), ("no-3ds.json", 1), ("no-items.json", 3), ("pending-total-without-amount.json", 1),
        ("too-precise.json", 1), ("truncated.json", 1),
    ])
    func invalidFixturesPrintOneErrorLinePerViolation(name: String, errors: Int) throws {
        let dir = try TemporaryDirectory()
        let result = try CLIRunner.run(["request", "validate", RepositoryPaths.fixture("requests/invalid/\(name)")], in: dir)
        #expect(result.status == 1, "\(result)")
        let errorLines = result.stderrLines.filter { $0.hasPrefix("error: ") }
        #expect(errorLines.count == errors, "\(result)")
        #expect(errorLines.allSatisfy { $0.split(separator: ":").count >= 3 })
    }

    @Test func jsonOutputCarriesPathsAndReasons() throws {
        let dir = try TemporaryDirectory()
        let result = try CLIRunner.run(["request", "validate", "--json", RepositoryPaths.fixture("requests/invalid/no-items.json")], in: dir)
        #expect(result.status == 1)
        #expect(result.stderr.isEmpty)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["valid"] as? Bool == false)
        let errors = try #require(json["errors"] as? [[String: String]])
        #expect(errors.map { $0["path"] } == ["supportedNetworks", "merchantCapabilities", "paymentSummaryItems"])
        #expect(json["warnings"] as? [Any] != nil)
    }

    @Test func readsStandardInput() throws {
        let dir = try TemporaryDirectory()
        let seed = try RepositoryPaths.contents(ofFixture: "requests/seed.json")
        let result = try CLIRunner.run(["request", "validate", "-"], stdin: seed, in: dir)
        #expect(result.status == 0, "\(result)")
        let implicit = try CLIRunner.run(["request", "validate"], stdin: "{", in: dir)
        #expect(implicit.status == 1)
        #expect(implicit.stderr.contains("invalid JSON at line 1"))
    }

    @Test func aMissingFileIsAFailureNamingThePath() throws {
        let dir = try TemporaryDirectory()
        let result = try CLIRunner.run(["request", "validate", "nope.json"], in: dir)
        #expect(result.status == 1)
        #expect(result.stderr == "Error: cannot read the payment request nope.json: no such file; check the path\n")
    }

    @Test func buildPrintsAValidTwentyDollarRequest() throws {
        let dir = try TemporaryDirectory()
        let built = try CLIRunner.run(["request", "build", "--amount", "20"], in: dir)
        #expect(built.status == 0, "\(built)")
        #expect(built.stdout.contains(#""amount": "20.00""#))
        #expect(built.stderr.hasPrefix("warning: paymentSummaryItems[0].label"))
        let validated = try CLIRunner.run(["request", "validate", "-"], stdin: built.stdout, in: dir)
        #expect(validated.status == 0, "\(validated)")
        #expect(validated.stdout.contains("valid payment request for 20.00 USD"))
    }

    @Test(arguments: [(["--segment", "2"], "10.00"), ([], "5.00"), (["--amount", "5.00"], "5.00")])
    func buildSelectsBySegmentOrDefault(arguments: [String], amount: String) throws {
        let dir = try TemporaryDirectory()
        let built = try CLIRunner.run(["request", "build", "--json"] + arguments, in: dir)
        #expect(built.status == 0, "\(built)")
        #expect(built.stdoutLines.count == 1)
        #expect(built.stdout.contains(#""amount":"\#(amount)""#))
    }

    @Test func anAmountNotOnThePanelListsTheOptions() throws {
        let dir = try TemporaryDirectory()
        let result = try CLIRunner.run(["request", "build", "--amount", "15"], in: dir)
        #expect(result.status == 1)
        #expect(result.stderr == "Error: 15.00 USD is not one of the panel's amounts: choose 5.00, 10.00 or 20.00 USD\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func buildUsesAPanelFile() throws {
        let dir = try TemporaryDirectory()
        let panel = try dir.write("panel.json", """
            {"merchantIdentifier": "merchant.com.example.cafe", "merchantName": "Example Cafe", "countryCode": "JP",
             "currencyCode": "JPY", "supportedNetworks": ["JCB", "visa"], "merchantCapabilities": ["supports3DS"],
             "productLabel": "Coffee", "amountOptions": [300, 500], "defaultSegment": 2}
            """)
        let result = try CLIRunner.run(["request", "build", "--panel", panel, "--json"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.contains(#"{"label":"Example Cafe","amount":"500","type":"final"}"#))
        let bad = try dir.write("bad.json", #"{"merchantIdentifier": "x"}"#)
        let rejected = try CLIRunner.run(["request", "build", "--panel", bad], in: dir)
        #expect(rejected.status == 1)
        #expect(rejected.stderr.contains("error: merchantIdentifier:"))
        #expect(rejected.stderr.contains("Error: the panel \(bad) is invalid"))
    }
}
