import Foundation
import PayPanel
import TestSupport
import Testing

/// `payments authorize --token`: the whole server-side path for an Apple Pay payment — verify,
/// decrypt, match the amount, refuse replays, authorize the DPAN with its cryptogram — and what
/// is (not) left behind on disk.
@Suite struct TokenPaymentTests {
    static let environment = ["PAYPANEL_NOW": "2026-11-29T12:00:00Z"]

    func run(_ arguments: [String], in directory: TemporaryDirectory, now: String? = nil) throws -> CLIResult {
        var environment = Self.environment
        if let now { environment["PAYPANEL_NOW"] = now }
        return try CLIRunner.run(arguments, in: directory, environment: environment)
    }

    func createIntent(_ amount: String = "10", in directory: TemporaryDirectory) throws -> String {
        let created = try run(["payments", "create", "--amount", amount, "--json"], in: directory)
        #expect(created.status == 0, "\(created)")
        return try #require(try JSONParser().parse(created.stdout)["id"]?.stringValue)
    }

    func seal(_ name: String, _ extra: [String], in directory: TemporaryDirectory) throws -> String {
        let sealed = try run(["token", "seal", "--amount", "10", "--currency", "USD"] + extra, in: directory)
        #expect(sealed.status == 0, "\(sealed)")
        return try directory.write(name, sealed.stdout)
    }

    /// The raw bytes of the payments database, its WAL and the processor ledger.
    func databaseBytes(in directory: TemporaryDirectory) throws -> [UInt8] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".sqlite") }
        #expect(names.contains("paypanel.sqlite") && names.contains("paypanel-processor.sqlite"))
        return try names.flatMap { Array(try Data(contentsOf: URL(fileURLWithPath: directory.file($0)))) }
    }

    @Test(arguments: ["EC_v1", "RSA_v1"])
    func aSealedTokenPaysAndLeavesNoDPANOrCryptogramOnDisk(version: String) throws {
        let directory = try TemporaryDirectory()
        let id = try createIntent(in: directory)
        let token = try seal("token.json", ["--card", "5555555555554444", "--version", version, "--eci", "05"], in: directory)
        let decrypted = try run(["token", "decrypt", token, "--test-root"], in: directory)
        let plaintext = try JSONParser().parse(decrypted.stdout)
        let dpan = try #require(plaintext["applicationPrimaryAccountNumber"]?.stringValue)
        let cryptogram = try #require(plaintext["paymentData"]?["onlinePaymentCryptogram"]?.stringValue)

        let paid = try run(["payments", "authorize", id, "--token", token, "--test-root", "--json"], in: directory)
        #expect(paid.status == 0, "\(paid)")
        let outcome = try JSONParser().parse(paid.stdout)
        #expect(outcome["intent"]?["status"] == "succeeded")
        #expect(outcome["attempt"]?["source"] == "apple_pay")
        #expect(outcome["attempt"]?["network"] == "masterCard")
        #expect(outcome["attempt"]?["last4"] == "4444")
        #expect(outcome["attempt"]?["eciPresent"] == true)
        #expect(outcome["sheetAnswer"] == "success")
        #expect(!paid.stdout.contains(dpan) && !paid.stderr.contains(dpan) && !paid.stdout.contains(cryptogram))

        let bytes = try databaseBytes(in: directory)
        #expect(bytes.firstRange(of: Array(dpan.utf8)) == nil, "the DPAN is on disk")
        #expect(bytes.firstRange(of: Array(cryptogram.utf8)) == nil, "the cryptogram is on disk")
        #expect(bytes.firstRange(of: Array(Data(base64Encoded: cryptogram)!)) == nil, "the decoded cryptogram is on disk")

        let ledger = try run(["processor", "ledger", "--json"], in: directory)
        let entries = try #require(try JSONParser().parse(ledger.stdout).arrayValue)
        #expect(entries.map { $0["operation"]?.stringValue } == ["authorize", "capture"])
    }

    /// fixtures/tokens holds tokens sealed at 2026-11-29T12:00:00Z for people to try the
    /// commands on; they must keep verifying at that time, and pay an intent of their amount.
    @Test(arguments: [("ec-visa-10-usd.json", "10", "visa", "4242"), ("rsa-mastercard-20-usd.json", "20", "masterCard", "4444")])
    func theFixtureTokensVerifyAndPayAtTheirSigningTime(name: String, amount: String, network: String, last4: String) throws {
        let directory = try TemporaryDirectory()
        let token = RepositoryPaths.fixture("tokens/\(name)")
        let verified = try run(["token", "verify", token, "--test-root", "--json"], in: directory, now: "2026-11-29T12:01:00Z")
        #expect(verified.status == 0, "\(verified)")
        let id = try createIntent(amount, in: directory)
        let paid = try run(["payments", "authorize", id, "--token", token, "--test-root", "--json"], in: directory, now: "2026-11-29T12:01:00Z")
        #expect(paid.status == 0, "\(paid)")
        let outcome = try JSONParser().parse(paid.stdout)
        #expect(outcome["attempt"]?["network"] == .string(network))
        #expect(outcome["attempt"]?["last4"] == .string(last4))
    }

    @Test func aTokenPaysOnce() throws {
        let directory = try TemporaryDirectory()
        let first = try createIntent(in: directory)
        let second = try createIntent(in: directory)
        let token = try seal("token.json", ["--card", "4242424242424242"], in: directory)
        #expect(try run(["payments", "authorize", first, "--token", token, "--test-root"], in: directory).status == 0)
        let replay = try run(["payments", "authorize", second, "--token", token, "--test-root"], in: directory)
        #expect(replay.status == 1)
        #expect(replay.stderr.contains("was already used for payment intent \(first)"), "\(replay)")
        let show = try run(["payments", "show", second, "--json"], in: directory)
        #expect(try JSONParser().parse(show.stdout)["attemptCount"] == 0, "a refused token opens no attempt")
    }

    @Test func aTokenForAnotherAmountIsRefusedWithoutUsingItsTransactionID() throws {
        let directory = try TemporaryDirectory()
        let twenty = try createIntent("20", in: directory)
        let ten = try createIntent("10", in: directory)
        let token = try seal("token.json", ["--card", "4242424242424242"], in: directory)
        let mismatch = try run(["payments", "authorize", twenty, "--token", token, "--test-root"], in: directory)
        #expect(mismatch.status == 1)
        #expect(mismatch.stderr == "Error: the token authorizes 10.00 USD but the payment is for 20.00 USD: the payer approved a different amount; ask them to pay again\n")
        // The refused token did not burn its transactionId: it can still pay the right intent.
        #expect(try run(["payments", "authorize", ten, "--token", token, "--test-root"], in: directory).status == 0)
    }

    @Test func aStaleOrTamperedTokenIsRefusedBeforeAnyAttempt() throws {
        let directory = try TemporaryDirectory()
        let id = try createIntent(in: directory)
        let token = try seal("token.json", ["--card", "4242424242424242"], in: directory)
        let stale = try run(["payments", "authorize", id, "--token", token, "--test-root"], in: directory, now: "2026-11-29T12:06:00Z")
        #expect(stale.status == 1)
        #expect(stale.stderr.contains("signing time"), "\(stale)")
        var text = try String(contentsOfFile: token, encoding: .utf8)
        let dataRange = try #require(text.range(of: #""data":""#))
        let index = text.index(dataRange.upperBound, offsetBy: 10)
        text.replaceSubrange(index...index, with: text[index] == "A" ? "B" : "A")
        let tampered = try directory.write("tampered.json", text)
        let refused = try run(["payments", "authorize", id, "--token", tampered, "--test-root"], in: directory)
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("Error: "))
        let ledger = try run(["processor", "ledger", "--json"], in: directory)
        let entries = ledger.status == 0 ? try JSONParser().parse(ledger.stdout).arrayValue ?? [] : []
        #expect(entries.isEmpty, "nothing reached the processor")
    }

    @Test func theSheetIsAnsweredAtItsDeadlineAndALateApprovalIsReversed() throws {
        let directory = try TemporaryDirectory()
        let id = try createIntent(in: directory)
        let token = try seal("slow.json", ["--card", "4242424242424242", "--holder", "SLOW_30S"], in: directory)
        let paid = try run(["payments", "authorize", id, "--token", token, "--test-root", "--json"], in: directory)
        #expect(paid.status == 1)
        let outcome = try JSONParser().parse(paid.stdout)
        #expect(outcome["sheetAnswer"] == "failure")
        #expect(outcome["intent"]?["status"] == "processing")
        #expect(paid.stderr.contains("answered with failure at its deadline"))

        let reconciled = try run(["reconcile", "--json"], in: directory, now: "2026-11-29T12:01:00Z")
        #expect(reconciled.status == 0, "\(reconciled)")
        let show = try JSONParser().parse(try run(["payments", "show", id, "--json"], in: directory).stdout)
        #expect(show["status"] == "requires_payment_method")
        #expect(show["attempts"]?[0]?["status"] == "voided")
        let ledger = try #require(try JSONParser().parse(try run(["processor", "ledger", "--json"], in: directory).stdout).arrayValue)
        #expect(ledger.map { "\($0["operation"]?.stringValue ?? "?") \($0["status"]?.stringValue ?? "?")" } == ["authorize approved", "void approved"])
    }
}

extension JSONValue {
    /// Array element access for tests.
    fileprivate subscript(index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }
}
