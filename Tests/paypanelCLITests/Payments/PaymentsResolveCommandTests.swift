import Foundation
import PayPanel
import TestSupport
import Testing

/// `paypanel payments resolve`, run as an operator would: intents driven into
/// requires_merchant_action through the real commands (an authorization or capture whose answer
/// was lost, then `paypanel reconcile` with lookups slower than the timeout until they run out),
/// then resolved each way; the refusals (wrong state, bad `--as`, missing `--note`, the
/// processor's ledger disagreeing without `--force`); exit codes 0/1/64, messages, `--json`, and
/// both ledgers agreeing afterwards.
@Suite struct PaymentsResolveCommandTests {
    /// Makes every lookup slower than the 30 s processor timeout: it gets no answer.
    static let unanswered = ["--latency", "31s"]

    /// An intent whose `authorize` (or, with `captureHolder`, whose capture) lost its answer,
    /// reconciled until the lookups ran out.
    static func intentNeedingAnOperator(
        _ cli: CheckoutCLI, holder: String, capture: String = "manual", losingTheCapture: Bool = false
    ) throws -> (id: String, attemptID: String) {
        let id: String
        if losingTheCapture {
            id = try cli.authorizedIntent(holder: holder)
            let lost = try cli.run(["payments", "capture", id])
            #expect(lost.status == 1 && lost.stderr.contains("no usable answer to the capture"), "\(lost)")
        } else {
            id = try cli.createIntent(capture: capture)
            let lost = try cli.run(["payments", "authorize", id, "--card", "4242424242424242", "--holder", holder])
            #expect(lost.status == 1 && lost.stderr.contains("no usable answer to the authorize"), "\(lost)")
        }
        for _ in 0..<PaymentPolicy.standard.maximumReconciliationLookups {
            let report = try cli.json(try cli.run(["reconcile", "--json"] + unanswered))
            if report["lookups"]?.arrayValue?.contains(where: { $0["intentId"]?.stringValue == id && $0["statusAfter"] == "requires_merchant_action" }) == true {
                break
            }
        }
        let shown = try cli.show(id)
        #expect(shown["status"] == "requires_merchant_action" && shown["lastError"]?["code"] == "reconciliation_exhausted")
        return (id, try #require(shown["attempts"]?.arrayValue?.last?["id"]?.stringValue))
    }

    func resolve(_ cli: CheckoutCLI, _ id: String, _ arguments: [String]) throws -> CLIResult {
        try cli.run(["payments", "resolve", id] + arguments)
    }

    // MARK: - Each way out

    struct Way: Sendable, CustomTestStringConvertible {
        let holder: String
        var capture = "manual"
        var losingTheCapture = false
        let resolution: String
        let status: String
        let ledger: [String]
        var testDescription: String { "\(holder) \(capture) → \(resolution)" }
    }

    static let ways: [Way] = [
        Way(holder: "TIMEOUT_THEN_APPROVED", resolution: "authorized", status: "requires_capture", ledger: ["authorize:approved"]),
        Way(holder: "TIMEOUT_THEN_APPROVED", capture: "automatic", resolution: "authorized", status: "succeeded",
            ledger: ["authorize:approved", "capture:approved"]),
        Way(holder: "TIMEOUT_THEN_APPROVED", resolution: "canceled", status: "canceled", ledger: ["authorize:approved", "void:approved"]),
        Way(holder: "CAPTURE_TIMEOUT", losingTheCapture: true, resolution: "succeeded", status: "succeeded",
            ledger: ["authorize:approved", "capture:approved"]),
        Way(holder: "TIMEOUT_THEN_NOT_RECEIVED", resolution: "retry", status: "requires_payment_method", ledger: []),
        Way(holder: "TIMEOUT_THEN_NOT_RECEIVED", resolution: "canceled", status: "canceled", ledger: []),
    ]

    @Test(arguments: ways)
    func eachResolutionTheLedgerAllowsIsAppliedAndRecorded(way: Way) throws {
        let cli = try CheckoutCLI()
        let (id, attemptID) = try Self.intentNeedingAnOperator(cli, holder: way.holder, capture: way.capture, losingTheCapture: way.losingTheCapture)
        let result = try resolve(cli, id, ["--as", way.resolution, "--note", "checked at the processor: ticket 8812", "--operator", "alice", "--json"])
        #expect(result.status == 0, "\(result)")
        let outcome = try cli.json(result)
        #expect(outcome.objectValue?.keys.map { $0 } == ["intent", "attempt", "refund", "sheetAnswer", "resolution"])
        #expect(outcome["intent"]?["status"]?.stringValue == way.status)
        #expect(outcome["attempt"]?["id"]?.stringValue == attemptID)
        let resolution = try #require(outcome["resolution"])
        #expect(resolution["as"]?.stringValue == way.resolution && resolution["operator"] == "alice" && resolution["forced"] == false)
        #expect(resolution["note"] == "checked at the processor: ticket 8812")
        #expect(resolution["processorSays"]?.stringValue?.hasPrefix("the processor ") == true)
        #expect(try cli.ledger(reference: attemptID) == way.ledger)
        let events = try cli.show(id)["events"]?.arrayValue ?? []
        let recorded = try #require(events.last { $0["type"] == "operator_resolved" })
        #expect(recorded["fromStatus"] == "requires_merchant_action")
        #expect(recorded["data"]?["note"] == "checked at the processor: ticket 8812" && recorded["data"]?["operator"] == "alice")
        let disagreements = try cli.disagreements(settled: true)
        #expect(disagreements.isEmpty, "\(disagreements)")
    }

    @Test func theTextOutputSaysWhoResolvedItWhatTheProcessorSaidAndWhatToDoNext() throws {
        let cli = try CheckoutCLI()
        let (id, attemptID) = try Self.intentNeedingAnOperator(cli, holder: "TIMEOUT_THEN_APPROVED")
        let result = try resolve(cli, id, ["--as", "authorized", "--note", "approved in the dashboard", "--operator", "alice"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.first == "\(id)  requires_capture")
        #expect(result.stdout.contains("  resolved    authorized by alice\n"))
        #expect(result.stdout.contains("  processor   the processor holds an authorization of 10.00 USD for \(attemptID) (auth_000001), neither captured nor voided\n"))
        #expect(result.stdout.contains("  note        \"approved in the dashboard\"\n"))
        #expect(result.stderr == "note: authorized; capture before 2026-12-06T12:00:00Z: paypanel payments capture \(id) [--amount X]\n")
        let shown = try cli.run(["payments", "show", id])
        #expect(shown.stdout.contains("       mark_authorized by alice: \"approved in the dashboard\"\n"), "\(shown)")
        #expect(try cli.run(["payments", "capture", id]).status == 0)
        #expect(try cli.disagreements(settled: true).isEmpty)
    }

    @Test func retryLetsThePayerPayAgain() throws {
        let cli = try CheckoutCLI()
        let (id, _) = try Self.intentNeedingAnOperator(cli, holder: "TIMEOUT_THEN_NOT_RECEIVED")
        let result = try resolve(cli, id, ["--as", "retry", "--note", "no trace at the processor", "--operator", "alice"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("  last error  resolved_by_operator: an operator reopened the intent for another payment method"))
        let again = try cli.run(["payments", "authorize", id, "--card", "4242424242424242"])
        #expect(again.status == 0 && again.stdoutLines.first == "\(id)  requires_capture", "\(again)")
        #expect(try cli.disagreements(settled: true).isEmpty)
    }

    // MARK: - The processor's ledger disagrees

    @Test func whatTheProcessorNeverCapturedIsRefusedWithoutForceAndRecordedWithIt() throws {
        let cli = try CheckoutCLI()
        let (id, attemptID) = try Self.intentNeedingAnOperator(cli, holder: "TIMEOUT_THEN_APPROVED")
        let refused = try resolve(cli, id, ["--as", "succeeded", "--note", "the customer says they paid", "--operator", "alice"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr == "Error: cannot resolve payment intent \(id) as succeeded: the processor holds an authorization of 10.00 USD for \(attemptID) (auth_000001), neither captured nor voided; resolve it with --as authorized or canceled instead, or pass --force to override the processor's ledger (the override is recorded)\n")
        #expect(try cli.show(id)["status"] == "requires_merchant_action")
        let forced = try resolve(cli, id, ["--as", "succeeded", "--note", "captured by phone with the acquirer", "--operator", "alice", "--force"])
        #expect(forced.status == 0, "\(forced)")
        #expect(forced.stdout.contains("  resolved    succeeded by alice, forced\n"))
        #expect(forced.stderr.hasPrefix("note: forced although the processor holds an authorization of 10.00 USD for \(attemptID)"))
        let recorded = try #require(try cli.show(id)["events"]?.arrayValue?.last)
        #expect(recorded["type"] == "operator_resolved" && recorded["data"]?["forced"] == true)
        #expect(recorded["data"]?["processor"]?["holding"] == "authorization")
        #expect(try cli.disagreements(settled: true).contains { $0.contains("captured 1000 here, nothing at the processor") })
    }

    @Test func whatTheProcessorNeverAuthorizedIsRefusedWithoutForce() throws {
        let cli = try CheckoutCLI()
        let (id, attemptID) = try Self.intentNeedingAnOperator(cli, holder: "TIMEOUT_THEN_NOT_RECEIVED")
        let refused = try resolve(cli, id, ["--as", "authorized", "--note", "I think it went through", "--operator", "alice", "--json"])
        #expect(refused.status == 1 && refused.stdout.isEmpty, "\(refused)")
        #expect(refused.stderr == "Error: cannot resolve payment intent \(id) as authorized: the processor holds nothing for \(attemptID): it has no record of the authorization; resolve it with --as canceled or retry instead, or pass --force to override the processor's ledger (the override is recorded)\n")
        let forced = try cli.json(try resolve(cli, id, ["--as", "authorized", "--note", "the acquirer confirmed it", "--operator", "alice", "--force", "--json"]))
        #expect(forced["intent"]?["status"] == "requires_capture" && forced["resolution"]?["forced"] == true)
        #expect(forced["resolution"]?["processor"]?["holding"] == "nothing")
    }

    @Test func nothingIsResolvedWhileTheProcessorCannotBeAsked() throws {
        let cli = try CheckoutCLI()
        let (id, _) = try Self.intentNeedingAnOperator(cli, holder: "TIMEOUT_THEN_APPROVED")
        let refused = try resolve(cli, id, ["--as", "canceled", "--note", "cancel it", "--operator", "alice"] + Self.unanswered)
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("the processor could not say what it holds"), "\(refused)")
        #expect(refused.stderr.contains("; try again once the processor answers, or pass --force"))
        #expect(try cli.ledger().filter { $0.hasPrefix("void") }.isEmpty)
    }

    // MARK: - Refusals before anything is asked

    @Test func anIntentOutsideRequiresMerchantActionIsRefused() throws {
        let cli = try CheckoutCLI()
        let id = try cli.authorizedIntent()
        let result = try resolve(cli, id, ["--as", "succeeded", "--note", "paid", "--operator", "alice", "--force"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr == "Error: payment intent \(id) is requires_capture: only an intent in requires_merchant_action can be resolved; see 'paypanel payments show \(id)'\n")
        #expect(try cli.show(id)["status"] == "requires_capture")
        let canceled = try cli.createIntent()
        _ = try cli.run(["payments", "cancel", canceled])
        let final = try resolve(cli, canceled, ["--as", "retry", "--note", "again", "--operator", "alice"])
        #expect(final.status == 1 && final.stderr == "Error: payment intent \(canceled) is canceled and can no longer change: create a new payment intent\n")
        let missing = try resolve(cli, "pi_missing", ["--as", "retry", "--note", "again", "--operator", "alice"])
        #expect(missing.status == 1 && missing.stderr.contains("no payment intent \"pi_missing\""))
    }

    @Test(arguments: [
        (["--note", "x", "--operator", "alice"], "Missing expected option '--as <resolution>'"),
        (["--as", "paid", "--note", "x", "--operator", "alice"], "'--as' takes one of authorized, succeeded, canceled, retry, not 'paid'"),
        (["--as", "retry", "--operator", "alice"], "Missing expected option '--note <text>'"),
        (["--as", "retry", "--note", "   ", "--operator", "alice"], "'--note': the note is empty"),
        (["--as", "retry", "--note", String(repeating: "n", count: 501), "--operator", "alice"], "'--note': the note is 501 characters long; keep it to 500"),
        (["--as", "retry", "--note", "two\nlines", "--operator", "alice"], "'--note': the note \"two\\nlines\" contains a control or invisible character"),
        (["--as", "retry", "--note", "x", "--operator", ""], "'--operator': the operator name is empty"),
        (["--as", "retry", "--note", "x"], "Missing expected option '--operator <name>' ($USER is not set)"),
        (["--as", "retry", "--note", "x", "--operator", "alice", "--force=yes"], "'--force' does not take a value"),
    ])
    func badUsageExits64(arguments: [String], message: String) throws {
        let cli = try CheckoutCLI()
        let id = try cli.authorizedIntent()
        let result = try resolve(cli, id, arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderrLines.first?.hasPrefix("Error: \(message)") == true, "\(result)")
        #expect(result.stderr.contains("Usage: paypanel payments resolve <id> --as <resolution> --note <text>"))
        #expect(result.stdout.isEmpty)
        #expect(try cli.show(id)["version"] == 3, "nothing changed")
    }

    /// A note is free text: a card number in it is refused before anything changes (the
    /// number never repeated), and a long digit run that is no card number is kept as written.
    @Test func theOperatorDefaultsToUserAndANoteMayHoldDigitsButNoCardNumber() throws {
        let cli = try CheckoutCLI()
        let (id, _) = try Self.intentNeedingAnOperator(cli, holder: "TIMEOUT_THEN_NOT_RECEIVED")
        let refused = try CLIRunner.run(
            ["payments", "resolve", id, "--as", "canceled", "--note", "customer read out 4242 4242 4242 4242, canceled", "--json"], in: cli.directory,
            environment: ["PAYPANEL_NOW": CheckoutCLI.start, "USER": "carol"])
        #expect(refused.status != 0 && refused.stderr.contains("note holds what looks like a card number"), "\(refused)")
        #expect(!refused.stdout.contains("4242 4242") && !refused.stderr.contains("4242 4242"))
        #expect(try cli.show(id)["status"] == "requires_merchant_action", "nothing changed")
        let note = "processor ticket 1234567890123 says no charge, canceled"
        let result = try CLIRunner.run(
            ["payments", "resolve", id, "--as", "canceled", "--note", note, "--json"], in: cli.directory,
            environment: ["PAYPANEL_NOW": CheckoutCLI.start, "USER": "carol"])
        #expect(result.status == 0, "\(result)")
        let resolution = try cli.json(result)["resolution"]
        #expect(resolution?["operator"] == "carol" && resolution?.objectValue?["note"] == .string(note))
    }

    @Test func resolveHasHelp() throws {
        let result = try CheckoutCLI().run(["payments", "resolve", "--help"])
        #expect(result.status == 0 && result.stdout.hasPrefix("OVERVIEW: Resolve an intent in requires_merchant_action"))
        #expect(result.stdout.contains("USAGE: paypanel payments resolve <id> --as <resolution> --note <text> [--operator <name>] [--force]"))
        let groups = try CheckoutCLI().run(["payments", "--help"])
        #expect(groups.stdout.contains("resolve"))
    }
}
