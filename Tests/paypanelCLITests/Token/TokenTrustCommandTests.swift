import Foundation
import PayPanel
import Testing
import TestSupport

/// Which root the token commands trust: Apple Root CA - G3 unless told otherwise, the test
/// root only with `--test-root`, sandbox tokens only with `--allow-sandbox` (or in test mode).
@Suite struct TokenTrustCommandTests {
    static let now = "2026-11-29T12:00:00Z"
    static let testRootRefusal = "Error: the token's signing chain ends at PayPanel's built-in test root, which is not trusted by default; "
        + "pass --test-root to accept test tokens (never in production)\n"

    /// Seals a token with the test identity (or the signing chain in `signerDirectory`).
    func seal(in directory: TemporaryDirectory, signerDirectory: String? = nil, amount: String = "10") throws -> String {
        let signer = signerDirectory.map { ["--signer-dir", $0] } ?? []
        let result = try CLIRunner.run(
            ["token", "seal", "--card", "4242424242424242", "--amount", amount, "--now", Self.now] + signer, in: directory)
        #expect(result.status == 0, "\(result)")
        return try directory.write("token.json", result.stdout)
    }

    /// A `--signer-dir` holding the test chain's sandbox-named leaf (fixtures/keys/signing-leaf-sandbox.*).
    func sandboxSignerDirectory(in directory: TemporaryDirectory) throws -> String {
        let signer = directory.file("sandbox-signer")
        try FileManager.default.createDirectory(atPath: signer, withIntermediateDirectories: true)
        for (fixture, name) in [("signing-leaf-sandbox.pem", "signing-leaf.pem"), ("signing-leaf-sandbox.key", "signing-leaf.key"),
                                ("intermediate-ca.pem", "intermediate-ca.pem")] {
            try FileManager.default.copyItem(atPath: RepositoryPaths.fixture("keys/\(fixture)"), toPath: signer + "/" + name)
        }
        return signer
    }

    @Test(arguments: ["decrypt", "verify"])
    func aTestTokenIsRefusedWithoutTestRootAndTheMessageNamesTheFlag(command: String) throws {
        let directory = try TemporaryDirectory()
        let token = try seal(in: directory)
        let refused = try CLIRunner.run(["token", command, token, "--now", Self.now], in: directory)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr == Self.testRootRefusal)
        #expect(!refused.stderr.contains("4242424242424242"))
        // With the test merchant's key given explicitly: the same refusal, the chain decides.
        let withKeys = try CLIRunner.run(
            ["token", command, token, "--now", Self.now, "--merchant-cert", RepositoryPaths.fixture("keys/merchant-ec.pem"),
             "--merchant-key", RepositoryPaths.fixture("keys/merchant-ec.key")], in: directory)
        #expect(withKeys.status == 1 && withKeys.stderr == Self.testRootRefusal, "\(withKeys)")
        // Asked for, it passes.
        let accepted = try CLIRunner.run(["token", command, token, "--now", Self.now, "--test-root"], in: directory)
        #expect(accepted.status == 0, "\(accepted)")
    }

    @Test func paymentsAuthorizeRefusesATestTokenWithoutTestRootAndOpensNoAttempt() throws {
        let directory = try TemporaryDirectory()
        let environment = ["PAYPANEL_NOW": Self.now]
        let created = try CLIRunner.run(["payments", "create", "--amount", "10", "--json"], in: directory, environment: environment)
        let id = try #require(try JSONParser().parse(created.stdout)["id"]?.stringValue)
        let token = try seal(in: directory)
        let refused = try CLIRunner.run(["payments", "authorize", id, "--token", token], in: directory, environment: environment)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr == Self.testRootRefusal)
        let show = try CLIRunner.run(["payments", "show", id, "--json"], in: directory, environment: environment)
        #expect(try JSONParser().parse(show.stdout)["attemptCount"] == 0, "a refused token opens no attempt")
        let paid = try CLIRunner.run(["payments", "authorize", id, "--token", token, "--test-root"], in: directory, environment: environment)
        #expect(paid.status == 0, "\(paid)")
    }

    @Test func anExplicitRootStillOverridesAndConflictsWithTestRoot() throws {
        let directory = try TemporaryDirectory()
        let token = try seal(in: directory)
        let testRootFile = RepositoryPaths.fixture("keys/root-ca.pem")
        let merchant = ["--merchant-cert", RepositoryPaths.fixture("keys/merchant-ec.pem"), "--merchant-key", RepositoryPaths.fixture("keys/merchant-ec.key")]
        let pinned = try CLIRunner.run(["token", "verify", token, "--now", Self.now, "--root", testRootFile, "--json"] + merchant, in: directory)
        #expect(pinned.status == 0, "\(pinned)")
        #expect(pinned.stdout.contains(#""testMode":false"#))
        // Outside test mode there are no built-in merchants: the keys must be given.
        let noKeys = try CLIRunner.run(["token", "verify", token, "--now", Self.now, "--root", testRootFile], in: directory)
        #expect(noKeys.status == 1)
        #expect(noKeys.stderr.contains("but no merchant certificates are configured"), "\(noKeys)")
        let other = try CLIRunner.run(
            ["token", "verify", token, "--now", Self.now, "--root", RepositoryPaths.fixture("keys/merchant-ec.pem")], in: directory)
        #expect(other.status == 1)
        #expect(other.stderr.contains("which is not the root --root pins (\(RepositoryPaths.fixture("keys/merchant-ec.pem")))"), "\(other)")
        #expect(other.stderr.contains("pass --test-root"))
        let both = try CLIRunner.run(["token", "verify", token, "--root", testRootFile, "--test-root"], in: directory)
        #expect(both.status == 64)
        #expect(both.stderrLines.first == "Error: give either '--root' or '--test-root', not both: '--test-root' pins PayPanel's test root")
        // --test-root is a flag on the command line, so it wins over $PAYPANEL_APPLE_ROOT.
        let overEnvironment = try CLIRunner.run(
            ["token", "verify", token, "--now", Self.now, "--test-root"], in: directory,
            environment: ["PAYPANEL_APPLE_ROOT": RepositoryPaths.fixture("keys/merchant-ec.pem")])
        #expect(overEnvironment.status == 0, "\(overEnvironment)")
    }

    @Test func tokenOptionsGoWithTokensOnly() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["payments", "authorize", "pi_x", "--card", "4242424242424242", "--test-root"], in: directory)
        #expect(result.status == 64)
        #expect(result.stderrLines.first == "Error: '--test-root' goes with '--token': a typed-in card has no token to check")
    }

    @Test func aSandboxTokenIsReportedAndRefusedOutsideTestModeUnlessAllowed() throws {
        let directory = try TemporaryDirectory()
        let token = try seal(in: directory, signerDirectory: try sandboxSignerDirectory(in: directory))
        // Test mode accepts it and says what it is.
        let verified = try CLIRunner.run(["token", "verify", token, "--now", Self.now, "--test-root", "--json"], in: directory)
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.stdout.contains(#""environment":"sandbox""#))
        let text = try CLIRunner.run(["token", "verify", token, "--now", Self.now, "--test-root"], in: directory)
        #expect(text.stdout.contains("  environment    sandbox\n"))
        let decrypted = try CLIRunner.run(["token", "decrypt", token, "--now", Self.now, "--test-root"], in: directory)
        #expect(decrypted.status == 0, "\(decrypted)")
        #expect(decrypted.stdout.hasPrefix(#"{"applicationPrimaryAccountNumber":"4242424242424242""#))
        #expect(decrypted.stderr == "note: environment sandbox: the token was signed by Apple Pay's sandbox "
            + "(paypanel-test-smp-broker-sign-SANDBOX); its card is a sandbox test card\n")

        // Outside test mode (the same chain pinned with --root): refused, naming the flag.
        let pinned = ["--now", Self.now, "--root", RepositoryPaths.fixture("keys/root-ca.pem"),
                      "--merchant-cert", RepositoryPaths.fixture("keys/merchant-ec.pem"), "--merchant-key", RepositoryPaths.fixture("keys/merchant-ec.key")]
        let refused = try CLIRunner.run(["token", "decrypt", token] + pinned, in: directory)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.hasPrefix("Error: the token was signed by Apple Pay's sandbox (CN=paypanel-test-smp-broker-sign-SANDBOX, "))
        #expect(refused.stderr.hasSuffix("; pass --allow-sandbox to accept sandbox tokens (testing only, never for real money)\n"))
        let allowed = try CLIRunner.run(["token", "verify", token, "--allow-sandbox", "--json"] + pinned, in: directory)
        #expect(allowed.status == 0, "\(allowed)")
        #expect(allowed.stdout.contains(#""environment":"sandbox""#) && allowed.stdout.contains(#""testMode":false"#))
    }

    @Test(arguments: [["token", "verify"], ["token", "decrypt"], ["payments", "authorize"]])
    func helpExplainsTheTrustOptions(command: [String]) throws {
        let result = try CLIRunner.run(command + ["--help"], in: try TemporaryDirectory())
        #expect(result.status == 0)
        for text in ["--test-root", "--allow-sandbox", "Apple Root CA - G3", "never in production"] {
            #expect(result.stdout.contains(text), "\(command) --help lacks \(text)")
        }
        #expect(!result.stdout.contains("else the built-in test root"))
    }
}

/// The real Apple tokens verify and decrypt with the built-in Apple Root CA - G3 and no
/// `--root` (skipped without ../shared).
@Suite(.enabled(if: RepositoryPaths.shared("conformance/applepay") != nil, "../shared/conformance/applepay is not on this machine"))
struct TokenDefaultRootConformanceTests {
    @Test(arguments: ["gala-2021", "basis-theory-ec", "basis-theory-rsa"])
    func appleTokenDecryptsWithTheBuiltInRoot(name: String) throws {
        let folder = try #require(RepositoryPaths.shared("conformance/applepay"))
        let expected = try JSONParser().parse(Array(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name)/expected.json"))))
        let time = try #require(expected["signing_time"]?.stringValue)
        let keys = ["--merchant-cert", "\(folder)/\(name)/certificate.pem", "--merchant-key", "\(folder)/\(name)/private_key.pem", "--now", time]
        let directory = try TemporaryDirectory()
        // Which environment signed it (accepting both, to find out).
        let verified = try CLIRunner.run(["token", "verify", "\(folder)/\(name)/token.json", "--json", "--allow-sandbox"] + keys, in: directory)
        #expect(verified.status == 0, "\(verified)")
        let report = try JSONParser().parse(verified.stdout)
        #expect(report["root"]?.stringValue == ApplePayRoots.appleRootCAG3.subject)
        #expect(report["testMode"] == false)
        let environment = try #require(report["environment"]?.stringValue)
        // All three vectors are production tokens (their leaf is …-smp-broker-sign_UC4-PROD).
        #expect(environment == "production")

        let sandbox = environment == "sandbox" ? ["--allow-sandbox"] : []
        let result = try CLIRunner.run(["token", "decrypt", "\(folder)/\(name)/token.json"] + keys + sandbox, in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        let plaintext = try String(contentsOfFile: "\(folder)/\(name)/expected_plaintext.bin", encoding: .utf8)
        #expect(result.stdout == plaintext.trimmingCharacters(in: .newlines) + "\n")
        #expect(try JSONParser().parse(result.stdout) == expected["plaintext"])
    }
}
