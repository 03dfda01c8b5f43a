import Foundation
import Testing
import TestSupport

/// `paypanel token seal | verify | decrypt`, run as a user would: a temporary directory, a
/// clean environment, stdout, stderr and the exit status.
@Suite struct TokenCommandTests {
    static let now = "2026-11-29T12:00:00Z"

    /// Seals a token into `token.json` in `directory` and returns its path.
    @discardableResult
    func seal(_ extra: [String] = [], in directory: TemporaryDirectory) throws -> String {
        let result = try CLIRunner.run(
            ["token", "seal", "--card", "4242424242424242", "--amount", "10", "--eci", "05", "--now", Self.now] + extra, in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        return try directory.write("token.json", result.stdout)
    }

    @Test func sealedTokenVerifiesAndDecryptsFromAnyDirectoryWithTheTestRootAndNoKeyOptions() throws {
        let directory = try TemporaryDirectory()
        let token = try seal(in: directory)

        let verified = try CLIRunner.run(["token", "verify", token, "--test-root", "--now", "2026-11-29T12:01:00Z"], in: directory)
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.stdoutLines.first == "valid EC_v1 payment token")
        #expect(verified.stdout.contains("signing time   2026-11-29T12:00:00Z"))
        #expect(verified.stdout.contains("environment    production"))
        #expect(verified.stdout.contains("signer         CN=paypanel-test-smp-broker-sign"))
        #expect(verified.stdout.contains("root           PayPanel Test Root CA - G3 (test mode: PayPanel's test root)"))
        #expect(verified.stdout.contains("merchant       merchant.com.sample.ApplePayAction"))
        #expect(!verified.stdout.contains("4242424242424242"))

        let decrypted = try CLIRunner.run(["token", "decrypt", token, "--test-root", "--now", "2026-11-29T12:01:00Z"], in: directory)
        #expect(decrypted.status == 0, "\(decrypted)")
        #expect(decrypted.stdout.hasPrefix(#"{"applicationPrimaryAccountNumber":"4242424242424242","applicationExpirationDate":"291231","currencyCode":"840","transactionAmount":1000,"#))
        #expect(decrypted.stdout.contains(#""eciIndicator":"05""#))
    }

    @Test func verifyPrintsJSONOnRequest() throws {
        let directory = try TemporaryDirectory()
        let token = try seal(in: directory)
        let result = try CLIRunner.run(["token", "verify", token, "--test-root", "--json", "--now", Self.now], in: directory)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix(#"{"valid":true,"version":"EC_v1","transactionId":""#))
        #expect(result.stdout.contains(#""signingTime":"2026-11-29T12:00:00Z""#))
        #expect(result.stdout.contains(#""environment":"production","root":"CN=PayPanel Test Root CA - G3, "#))
        #expect(result.stdout.contains(#""testMode":true"#))
    }

    @Test func tokensAreReadFromStandardInput() throws {
        let directory = try TemporaryDirectory()
        let token = try String(contentsOfFile: try seal(["--version", "RSA_v1"], in: directory), encoding: .utf8)
        let result = try CLIRunner.run(["token", "decrypt", "-", "--test-root", "--now", Self.now], stdin: token, in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains(#""transactionAmount":1000"#))
    }

    @Test func staleTokenFailsWithTheReasonAndNoCardData() throws {
        let directory = try TemporaryDirectory()
        let token = try seal(in: directory)
        let result = try CLIRunner.run(["token", "decrypt", token, "--test-root", "--now", "2026-11-29T12:10:00Z"], in: directory)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.hasPrefix("Error: the token was signed at 2026-11-29T12:00:00Z, more than 300 s before"))
        #expect(!result.stderr.contains("4242424242424242"))
        // A wider window or no time check accepts it.
        #expect(try CLIRunner.run(["token", "decrypt", token, "--test-root", "--now", "2026-11-29T12:10:00Z", "--window", "900"], in: directory).status == 0)
        #expect(try CLIRunner.run(["token", "decrypt", token, "--test-root", "--now", "2026-12-29T12:10:00Z", "--no-time-check"], in: directory).status == 0)
        // $PAYPANEL_NOW is the clock too.
        #expect(try CLIRunner.run(["token", "verify", token, "--test-root"], in: directory, environment: ["PAYPANEL_NOW": Self.now]).status == 0)
    }

    @Test func tamperedTokenIsRejected() throws {
        let directory = try TemporaryDirectory()
        let text = try String(contentsOfFile: try seal(in: directory), encoding: .utf8)
        let tampered = try directory.write("tampered.json", text.replacingOccurrences(of: #""data":""#, with: #""data":"AAAA"#))
        let result = try CLIRunner.run(["token", "decrypt", tampered, "--test-root", "--now", Self.now], in: directory)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: "))
    }

    @Test func explicitMerchantPairsAndRotationWork() throws {
        let directory = try TemporaryDirectory()
        let rotated = RepositoryPaths.fixture("keys/merchant-ec-rotated.pem")
        let token = try seal(["--merchant-cert", rotated], in: directory)
        let pairs = [
            "--merchant-cert", RepositoryPaths.fixture("keys/merchant-ec.pem"), "--merchant-key", RepositoryPaths.fixture("keys/merchant-ec.pkcs8.key"),
            "--merchant-cert", rotated, "--merchant-key", RepositoryPaths.fixture("keys/merchant-ec-rotated.key"),
            "--root", RepositoryPaths.fixture("keys/root-ca.pem"),
        ]
        let both = try CLIRunner.run(["token", "decrypt", token, "--now", Self.now] + pairs, in: directory)
        #expect(both.status == 0, "\(both)")
        let onlyOld = try CLIRunner.run(
            ["token", "decrypt", token, "--test-root", "--now", Self.now, "--merchant-cert", RepositoryPaths.fixture("keys/merchant-ec.pem"),
             "--merchant-key", RepositoryPaths.fixture("keys/merchant-ec.key")], in: directory)
        #expect(onlyOld.status == 1)
        #expect(onlyOld.stderr.contains("publicKeyHash"))
    }

    @Test func merchantKeysComeFromTheEnvironmentToo() throws {
        let directory = try TemporaryDirectory()
        let token = try seal(["--version", "RSA_v1"], in: directory)
        let environment = [
            "PAYPANEL_MERCHANT_CERT": RepositoryPaths.fixture("keys/merchant-ec.pem") + ":" + RepositoryPaths.fixture("keys/merchant-rsa.pem"),
            "PAYPANEL_MERCHANT_KEY": RepositoryPaths.fixture("keys/merchant-ec.key") + ":" + RepositoryPaths.fixture("keys/merchant-rsa.pkcs1.key"),
        ]
        let result = try CLIRunner.run(["token", "decrypt", token, "--test-root", "--now", Self.now], in: directory, environment: environment)
        #expect(result.status == 0, "\(result)")
        // $PAYPANEL_APPLE_ROOT pins the root: the test root signed this token, so the test root works
        // there, and another certificate is refused, naming the variable.
        let testRoot = try CLIRunner.run(
            ["token", "decrypt", token, "--now", Self.now], in: directory,
            environment: environment.merging(["PAYPANEL_APPLE_ROOT": RepositoryPaths.fixture("keys/root-ca.pem")]) { $1 })
        #expect(testRoot.status == 0, "\(testRoot)")
        let wrongRoot = try CLIRunner.run(
            ["token", "decrypt", token, "--now", Self.now], in: directory,
            environment: environment.merging(["PAYPANEL_APPLE_ROOT": RepositoryPaths.fixture("keys/merchant-ec.pem")]) { $1 })
        #expect(wrongRoot.status == 1)
        #expect(wrongRoot.stderr.contains("ends at PayPanel's built-in test root, which is not the root $PAYPANEL_APPLE_ROOT pins"), "\(wrongRoot)")
    }

    @Test func badKeyOptionsAreExplained() throws {
        let directory = try TemporaryDirectory()
        let token = try seal(in: directory)
        let unpaired = try CLIRunner.run(
            ["token", "decrypt", token, "--merchant-cert", RepositoryPaths.fixture("keys/merchant-ec.pem")], in: directory)
        #expect(unpaired.status == 64)
        #expect(unpaired.stderrLines.first == "Error: --merchant-cert/--merchant-key: 1 certificate(s) but 0 key(s); give each certificate its key, in the same order")
        let mismatched = try CLIRunner.run(
            ["token", "decrypt", token, "--merchant-cert", RepositoryPaths.fixture("keys/merchant-ec.pem"),
             "--merchant-key", RepositoryPaths.fixture("keys/merchant-ec-rotated.key")], in: directory)
        #expect(mismatched.status == 1)
        #expect(mismatched.stderr.contains("does not belong to the certificate"))
        let missing = try CLIRunner.run(
            ["token", "decrypt", token, "--merchant-cert", "nope.pem", "--merchant-key", "nope.key"], in: directory)
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: cannot read the merchant certificate nope.pem: no such file; check the path\n")
        let badWindow = try CLIRunner.run(["token", "decrypt", token, "--window", "-5"], in: directory)
        #expect(badWindow.status == 64)
    }

    @Test func sealUsageErrorsExitSixtyFour() throws {
        let directory = try TemporaryDirectory()
        let noCard = try CLIRunner.run(["token", "seal", "--amount", "10"], in: directory)
        #expect(noCard.status == 64)
        #expect(noCard.stderrLines.first == "Error: Missing '--card <number>': the test card to seal")
        let badCard = try CLIRunner.run(["token", "seal", "--card", "4242424242424241", "--amount", "10"], in: directory)
        #expect(badCard.status == 64)
        #expect(badCard.stderr.contains("Luhn"))
        let badAmount = try CLIRunner.run(["token", "seal", "--card", "4242424242424242", "--amount", "10.001"], in: directory)
        #expect(badAmount.status == 64)
        let badVersion = try CLIRunner.run(["token", "seal", "--card", "4242424242424242", "--amount", "10", "--version", "EC_v2"], in: directory)
        #expect(badVersion.status == 64)
        #expect(badVersion.stderrLines.first == "Error: '--version' takes one of EC_v1, RSA_v1, not 'EC_v2'")
    }

    @Test func sealOptionsShapeTheToken() throws {
        let directory = try TemporaryDirectory()
        let sealed = try CLIRunner.run(
            ["token", "seal", "--card", "5555555555554444", "--currency", "JPY", "--amount", "1500", "--expiry", "03/31", "--holder", "Ada",
             "--payment-data", "--now", Self.now], in: directory)
        #expect(sealed.status == 0, "\(sealed)")
        let token = try directory.write("token.json", sealed.stdout)
        let text = sealed.stdout
        #expect(text.hasPrefix(#"{"version":"EC_v1""#))
        let result = try CLIRunner.run(["token", "decrypt", token, "--test-root", "--now", Self.now], in: directory)
        #expect(result.stdout.contains(#""applicationExpirationDate":"310331","currencyCode":"392","transactionAmount":1500,"cardholderName":"Ada""#))
    }

    @Test(arguments: [["token", "seal"], ["token", "verify"], ["token", "decrypt"], ["bench", "token"]])
    func everyCommandHasHelp(command: [String]) throws {
        let result = try CLIRunner.run(command + ["--help"], in: try TemporaryDirectory())
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("OVERVIEW: "))
        #expect(result.stdout.contains("USAGE: paypanel \(command.joined(separator: " "))"))
    }

    @Test func benchPrintsItsFiguresAsJSON() throws {
        let result = try CLIRunner.run(["bench", "token", "--count", "20", "--json"], in: try TemporaryDirectory())
        #expect(result.status == 0, "\(result)")
        let keys = ["\"count\":20", "\"decryptPerSecond\":", "\"verifyDecryptPerSecond\":", "\"ecdhPerSecond\":", "\"decryptRatio\":"]
        for key in keys { #expect(result.stdout.contains(key), "\(key) missing from \(result.stdout)") }
        #expect(result.stderr.isEmpty)
    }
}

/// `token decrypt` on the real Apple tokens, as check.sh runs it (skipped without ../shared).
@Suite(.enabled(if: RepositoryPaths.shared("conformance/applepay") != nil, "../shared/conformance/applepay is not on this machine"))
struct TokenConformanceCommandTests {
    @Test(arguments: ["gala-2021", "basis-theory-ec", "basis-theory-rsa"])
    func appleTokenDecryptsAtItsSigningTime(name: String) throws {
        let folder = try #require(RepositoryPaths.shared("conformance/applepay"))
        let expected = try String(contentsOfFile: "\(folder)/\(name)/expected.json", encoding: .utf8)
        let time = try #require(expected.split(separator: "\"").drop { $0 != "signing_time" }.dropFirst(2).first)
        let result = try CLIRunner.run(
            ["token", "decrypt", "\(folder)/\(name)/token.json", "--merchant-cert", "\(folder)/\(name)/certificate.pem",
             "--merchant-key", "\(folder)/\(name)/private_key.pem", "--root", "\(folder)/roots/AppleRootCA-G3.pem", "--now", String(time)],
            in: try TemporaryDirectory())
        #expect(result.status == 0, "\(result)")
        let plaintext = try String(contentsOfFile: "\(folder)/\(name)/expected_plaintext.bin", encoding: .utf8)
        #expect(result.stdout == plaintext.trimmingCharacters(in: .newlines) + "\n")
    }
}
