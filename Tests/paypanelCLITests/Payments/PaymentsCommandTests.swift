import Foundation
import PayPanel
import TestSupport
import Testing

/// `paypanel payments create|show|list|cancel`, run as a user would.
@Suite struct PaymentsCommandTests {
    static let now = "2026-11-29T12:00:00Z"

    func paypanel(_ arguments: [String], in directory: TemporaryDirectory, now: String = PaymentsCommandTests.now) throws -> CLIResult {
        try CLIRunner.run(arguments, in: directory, environment: ["PAYPANEL_NOW": now])
    }

    func json(_ result: CLIResult) throws -> JSONValue {
        try JSONParser().parse(result.stdout)
    }

    @Test func createPrintsTheIntentInTheDocumentedShape() throws {
        let directory = try TemporaryDirectory()
        let result = try paypanel(["payments", "create", "--amount", "10", "--capture", "manual", "--order", "A-17", "--json"], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        let intent = try json(result)
        let keys = intent.objectValue?.keys ?? []
        #expect(Array(keys.prefix(11)) == [
            "id", "status", "amount", "currency", "captureMethod", "amountCapturable", "amountCaptured", "amountRefunded",
            "lastError", "version", "createdAt",
        ])
        #expect(PaymentIDs.isWellFormed(intent["id"]?.stringValue ?? "", kind: .intent))
        #expect(intent["status"] == "requires_payment_method")
        #expect(intent["amount"] == 1000 && intent["currency"] == "USD" && intent["captureMethod"] == "manual")
        #expect(intent["lastError"] == .null && intent["version"] == 1)
        #expect(intent["createdAt"] == "2026-11-29T12:00:00Z" && intent["orderReference"] == "A-17")
        #expect(FileManager.default.fileExists(atPath: directory.file("paypanel.sqlite")))
    }

    @Test func amountsFollowTheCurrencysMinorUnits() throws {
        let directory = try TemporaryDirectory()
        let yen = try json(try paypanel(["payments", "create", "--amount", "500", "--currency", "JPY", "--json"], in: directory))
        #expect(yen["amount"] == 500)
        let dinar = try json(try paypanel(["payments", "create", "--amount", "1.234", "--currency", "KWD", "--json"], in: directory))
        #expect(dinar["amount"] == 1234)
    }

    @Test(arguments: [
        (["--amount", "1e3"], "exponent"),
        (["--amount", "10.001"], "3 decimal places"),
        (["--amount", "0"], "above zero"),
        (["--amount", "10", "--currency", "usd"], "--currency"),
        (["--amount", "10", "--capture", "later"], "automatic, manual"),
        (["--amount", "10", "--order", "card 4242 4242 4242 4242"], "holds what looks like a card number"),
        (["--amount", "10", "--idempotency-key", ""], "idempotency key"),
        (["--amount", "10", "--metadata", "note=card 4242 4242 4242 4242"], "holds what looks like a card number"),
        (["--amount", "10", "--metadata", "order"], "key=value"),
        (["--amount", "10", "--metadata", "a[b]=1"], "may not contain [ or ]"),
        ([String](), "--amount"),
    ])
    func badInputIsAUsageError(arguments: [String], reason: String) throws {
        let directory = try TemporaryDirectory()
        let result = try paypanel(["payments", "create"] + arguments, in: directory)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderrLines.first?.hasPrefix("Error: ") == true)
        #expect(result.stderr.contains(reason))
        #expect(!result.stderr.contains("4242 4242"))
        #expect(result.stdout.isEmpty)
    }

    /// Free text and keys through the CLI: long digit runs that are no card number are kept as
    /// written (they were refused before), metadata comes back in --json and in the text form.
    @Test func longDigitRunsAndMetadataAreKeptAsWritten() throws {
        let directory = try TemporaryDirectory()
        let result = try paypanel([
            "payments", "create", "--amount", "10", "--order", "order-1234567890123", "--metadata", "sent_ns=1732000000123456780",
            "--metadata", "uuid=3f2a9c1e-8b7d-4e2f-a1b2-123456789012", "--idempotency-key", "1732000000123456789", "--json",
        ], in: directory)
        #expect(result.status == 0, "\(result)")
        let intent = try json(result)
        #expect(intent["orderReference"] == "order-1234567890123")
        #expect(intent["metadata"] == ["sent_ns": "1732000000123456780", "uuid": "3f2a9c1e-8b7d-4e2f-a1b2-123456789012"])
        let id = intent["id"]?.stringValue ?? ""
        let shown = try paypanel(["payments", "show", id], in: directory)
        #expect(shown.stdout.contains(#"metadata    "sent_ns": "1732000000123456780""#), "\(shown)")
        #expect(try json(try paypanel(["payments", "show", id, "--json"], in: directory))["metadata"] == intent["metadata"])
    }

    @Test func theSameIdempotencyKeyReplaysTheFirstIntent() throws {
        let directory = try TemporaryDirectory()
        let arguments = ["payments", "create", "--amount", "20", "--idempotency-key", "order-9", "--json"]
        let first = try paypanel(arguments, in: directory)
        let second = try paypanel(arguments, in: directory, now: "2026-11-29T13:00:00Z")
        #expect(first.status == 0 && second.status == 0)
        #expect(first.stdout == second.stdout)
        #expect(second.stderr.contains("replayed the result of idempotency key \"order-9\""))
        let reused = try paypanel(["payments", "create", "--amount", "5", "--idempotency-key", "order-9"], in: directory)
        #expect(reused.status == 1)
        #expect(reused.stderr.hasPrefix("Error: idempotency key \"order-9\" was already used at 2026-11-29T12:00:00Z"))
        let expired = try paypanel(arguments, in: directory, now: "2026-11-30T12:00:00Z")
        #expect(expired.status == 0 && expired.stdout != first.stdout, "a key is forgotten after 24 h")
        let list = try json(try paypanel(["payments", "list", "--json"], in: directory))
        #expect(list.arrayValue?.count == 2)
    }

    @Test func showPrintsAttemptsRefundsAndTheHistory() throws {
        let directory = try TemporaryDirectory()
        let id = try json(try paypanel(["payments", "create", "--amount", "10", "--json"], in: directory))["id"]?.stringValue ?? ""
        _ = try paypanel(["payments", "cancel", id, "--reason", "fraudulent"], in: directory, now: "2026-11-29T12:05:00Z")
        let shown = try json(try paypanel(["payments", "show", id, "--json"], in: directory))
        #expect(shown["status"] == "canceled" && shown["cancellationReason"] == "fraudulent")
        #expect(shown["attempts"] == [] && shown["refunds"] == [])
        let events = shown["events"]?.arrayValue ?? []
        #expect(events.map { $0["type"]?.stringValue } == ["intent_created", "cancel_requested"])
        #expect(events.last?["occurredAt"] == "2026-11-29T12:05:00Z")
        let text = try paypanel(["payments", "show", id], in: directory)
        #expect(text.status == 0)
        #expect(text.stdoutLines.first == "\(id)  canceled")
        #expect(text.stdout.contains("requires_payment_method → canceled"))
    }

    @Test func listIsNewestFirstAndFiltersByStatus() throws {
        let directory = try TemporaryDirectory()
        var ids: [String] = []
        for minute in 0..<4 {
            let created = try paypanel(["payments", "create", "--amount", "5", "--json"], in: directory, now: "2026-11-29T12:0\(minute):00Z")
            ids.append(try json(created)["id"]?.stringValue ?? "")
        }
        _ = try paypanel(["payments", "cancel", ids[2]], in: directory)
        let all = try json(try paypanel(["payments", "list", "--json"], in: directory))
        #expect(all.arrayValue?.compactMap { $0["id"]?.stringValue } == ids.reversed())
        let limited = try json(try paypanel(["payments", "list", "--limit", "2", "--json"], in: directory))
        #expect(limited.arrayValue?.compactMap { $0["id"]?.stringValue } == [ids[3], ids[2]])
        let canceled = try json(try paypanel(["payments", "list", "--status", "canceled", "--json"], in: directory))
        #expect(canceled.arrayValue?.compactMap { $0["id"]?.stringValue } == [ids[2]])
        let text = try paypanel(["payments", "ls"], in: directory)
        #expect(text.stdoutLines.count == 5 && text.stdoutLines.first?.hasPrefix("ID") == true)
        let empty = try json(try paypanel(["payments", "list", "--status", "expired", "--json"], in: directory))
        #expect(empty == [])
    }

    @Test func cancelRefusesWhatCannotBeCanceled() throws {
        let directory = try TemporaryDirectory()
        let id = try json(try paypanel(["payments", "create", "--amount", "10", "--json"], in: directory))["id"]?.stringValue ?? ""
        #expect(try paypanel(["payments", "cancel", id], in: directory).status == 0)
        let again = try paypanel(["payments", "cancel", id], in: directory)
        #expect(again.status == 1)
        #expect(again.stderr == "Error: payment intent \(id) is canceled and can no longer change: create a new payment intent\n")
        let missing = try paypanel(["payments", "cancel", "pi_missing"], in: directory)
        #expect(missing.status == 1 && missing.stderr.contains("no payment intent \"pi_missing\""))
        let badReason = try paypanel(["payments", "cancel", id, "--reason", "bored"], in: directory)
        #expect(badReason.status == 64)
    }

    @Test(arguments: [["payments"], ["payments", "create"], ["payments", "show"], ["payments", "list"], ["payments", "cancel"], ["db"], ["db", "migrate"], ["db", "status"]])
    func everyCommandHasHelp(path: [String]) throws {
        let directory = try TemporaryDirectory()
        let result = try paypanel(path + ["--help"], in: directory)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("OVERVIEW: "))
        #expect(result.stdout.contains("USAGE: paypanel \(path.joined(separator: " "))"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("paypanel.sqlite")), "help must not create the database")
    }
}
