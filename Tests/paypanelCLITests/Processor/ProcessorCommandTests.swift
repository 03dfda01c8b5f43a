import Foundation
import MockProcessor
import PayPanel
import Testing
import TestSupport

/// `paypanel processor ledger` and `paypanel processor triggers`, run as a user would.
@Suite struct ProcessorCommandTests {
    static let start = "2026-11-29T08:00:00Z"

    /// A ledger with an approved, captured and partly refunded payment, a decline, and a pending
    /// asynchronous refund, written by the real processor.
    static func makeLedger(at path: String) async throws {
        let clock = ManualClock(try Timestamp.parse(start))
        let processor = try MockProcessor(ledgerPath: path, clock: clock, sleeper: ManualClockSleeper(clock: clock))
        let usd = try Currency(code: "USD")
        let visa = PaymentMethodData.card(number: try CardNumber("4242424242424242"), expiry: try CardExpiry("12/30"), holderName: nil)
        _ = await processor.authorize(AuthorizationRequest(reference: "att_1", amount: Amount(minorUnits: 1000, currency: usd), paymentMethod: visa), timeout: .seconds(25))
        clock.advance(by: 5)
        _ = await processor.capture(CaptureRequest(reference: "att_1", amount: Amount(minorUnits: 1000, currency: usd)), timeout: .seconds(25))
        clock.advance(by: 55)
        _ = await processor.refund(RefundRequest(reference: "att_1", refundReference: "rf_1", amount: Amount(minorUnits: 400, currency: usd)), timeout: .seconds(25))
        let declined = PaymentMethodData.card(number: try CardNumber("4000000000009995"), expiry: nil, holderName: nil)
        _ = await processor.authorize(AuthorizationRequest(reference: "att_2", amount: Amount(minorUnits: 500, currency: usd), paymentMethod: declined), timeout: .seconds(25))
        let async = PaymentMethodData.card(number: try CardNumber("5555555555554444"), expiry: nil, holderName: "REFUND_ASYNC")
        _ = await processor.authorize(AuthorizationRequest(reference: "att_3", amount: Amount(minorUnits: 2000, currency: usd), paymentMethod: async), timeout: .seconds(25))
        _ = await processor.capture(CaptureRequest(reference: "att_3", amount: Amount(minorUnits: 2000, currency: usd)), timeout: .seconds(25))
        _ = await processor.refund(RefundRequest(reference: "att_3", refundReference: "rf_3", amount: Amount(minorUnits: 2000, currency: usd)), timeout: .seconds(25))
    }

    @Test func ledgerPrintsOneLinePerOperation() async throws {
        let directory = try TemporaryDirectory()
        try await Self.makeLedger(at: directory.file("paypanel-processor.sqlite"))
        let result = try CLIRunner.run(["processor", "ledger", "--now", "2026-11-29T08:01:30Z"], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        let lines = result.stdoutLines
        #expect(lines.count == 8)
        #expect(lines.first == "PROCESSOR ID  CREATED               REFERENCE     OPERATION  AMOUNT     STATUS                         CARD                  TRIGGER")
        #expect(lines[1] == "auth_000001   2026-11-29T08:00:00Z  att_1         authorize  10.00 USD  approved                       visa •••• 4242        APPROVE")
        #expect(lines[3] == "ref_000003    2026-11-29T08:01:00Z  att_1 / rf_1  refund     4.00 USD   approved                       visa •••• 4242")
        #expect(lines[4].contains("declined (insufficient_funds)"))
        #expect(lines[7].hasPrefix("ref_000007") && lines[7].contains("pending"))
    }

    @Test func ledgerJSONHasEveryFieldWithAmountsInMinorUnits() async throws {
        let directory = try TemporaryDirectory()
        try await Self.makeLedger(at: directory.file("paypanel-processor.sqlite"))
        let result = try CLIRunner.run(["processor", "ledger", "--json", "--reference", "att_1"], in: directory)
        #expect(result.status == 0, "\(result)")
        let entries = try #require(try JSONParser().parse(result.stdout).arrayValue)
        #expect(entries.count == 3)
        let authorization = try #require(entries.first)
        #expect(authorization["reference"] == "att_1")
        #expect(authorization["operation"] == "authorize")
        #expect(authorization["amount"] == .number(1000 as Int64))
        #expect(authorization["currency"] == "USD")
        #expect(authorization["status"] == "approved")
        #expect(authorization["declineCode"] == .null)
        #expect(authorization["network"] == "visa")
        #expect(authorization["last4"] == "4242")
        #expect(authorization["processorId"] == "auth_000001")
        #expect(authorization["createdAt"] == "2026-11-29T08:00:00Z")
        #expect(authorization["expiresAt"] == "2026-12-06T08:00:00Z")
        #expect(entries.map { $0["operation"] } == ["authorize", "capture", "refund"])
        #expect(entries.last?["refundReference"] == "rf_1")
        #expect(!result.stdout.contains("4242424242424242"))
    }

    @Test func ledgerReadAtALaterTimeShowsTheAsyncRefundSettled() async throws {
        let directory = try TemporaryDirectory()
        try await Self.makeLedger(at: directory.file("paypanel-processor.sqlite"))
        let before = try CLIRunner.run(["processor", "ledger", "--json", "--reference", "rf_3", "--now", "2026-11-29T08:01:30Z"], in: directory)
        let after = try CLIRunner.run(["processor", "ledger", "--json", "--reference", "rf_3", "--now", "2026-11-29T08:02:00Z"], in: directory)
        #expect(try JSONParser().parse(before.stdout).arrayValue?.first?["status"] == "pending")
        let settled = try #require(try JSONParser().parse(after.stdout).arrayValue?.first)
        #expect(settled["status"] == "approved")
        #expect(settled["updatedAt"] == "2026-11-29T08:02:00Z")
    }

    @Test func ledgerPathComesFromTheOptionThenTheEnvironment() async throws {
        let directory = try TemporaryDirectory()
        try await Self.makeLedger(at: directory.file("elsewhere.sqlite"))
        let byOption = try CLIRunner.run(["processor", "ledger", "--processor-db", "elsewhere.sqlite", "--json"], in: directory)
        let byEnvironment = try CLIRunner.run(["processor", "ledger", "--json"], in: directory, environment: ["PAYPANEL_PROCESSOR_DB": "elsewhere.sqlite"])
        #expect(byOption.status == 0 && byEnvironment.status == 0)
        #expect(try JSONParser().parse(byOption.stdout).arrayValue?.count == 7)
        #expect(byEnvironment.stdout == byOption.stdout)
    }

    @Test func anEmptyLedgerAndAnUnknownReferenceSaySo() async throws {
        let directory = try TemporaryDirectory()
        _ = try ProcessorLedger(path: directory.file("paypanel-processor.sqlite"))
        let empty = try CLIRunner.run(["processor", "ledger"], in: directory)
        #expect(empty.status == 0)
        #expect(empty.stdout == "The mock-processor ledger paypanel-processor.sqlite is empty.\n")
        let json = try CLIRunner.run(["processor", "ledger", "--json", "--reference", "att_9"], in: directory)
        #expect(json.stdout == "[]\n")
        let text = try CLIRunner.run(["processor", "ledger", "--reference", "att_9"], in: directory)
        #expect(text.stdout == "The mock-processor ledger paypanel-processor.sqlite has no entry for reference \"att_9\".\n")
    }

    @Test func aMissingLedgerIsAnErrorAndIsNotCreated() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["processor", "ledger"], in: directory)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "Error: no mock-processor ledger at paypanel-processor.sqlite: nothing was sent to the mock processor with this ledger yet; check --processor-db (or $PAYPANEL_PROCESSOR_DB)\n")
        #expect(!FileManager.default.fileExists(atPath: directory.file("paypanel-processor.sqlite")))
    }

    @Test func aFileThatIsNotSQLiteIsRefused() throws {
        let directory = try TemporaryDirectory()
        try directory.write("notes.txt", String(repeating: "not a database\n", count: 20))
        let result = try CLIRunner.run(["processor", "ledger", "--processor-db", "notes.txt"], in: directory)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: notes.txt is not a SQLite database, so not a mock-processor ledger: point --processor-db (or $PAYPANEL_PROCESSOR_DB) at the processor's ledger or at a new path"))
        #expect(try String(contentsOfFile: directory.file("notes.txt"), encoding: .utf8).hasPrefix("not a database"))
    }

    @Test func thePaymentsDatabaseIsNotAProcessorLedger() throws {
        let directory = try TemporaryDirectory()
        _ = try Database.openMigrated(path: directory.file("paypanel.sqlite"), set: .main)
        let result = try CLIRunner.run(["processor", "ledger", "--processor-db", "paypanel.sqlite"], in: directory)
        #expect(result.status == 1)
        #expect(result.stderr == "Error: paypanel.sqlite is not a mock-processor ledger (another PayPanel database, such as the payments database, or another program's): point --processor-db (or $PAYPANEL_PROCESSOR_DB) at the processor's ledger or at a new path\n")
    }

    @Test func aDirectoryIsNotALedger() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("ledger.d"), withIntermediateDirectories: false)
        let result = try CLIRunner.run(["processor", "ledger", "--processor-db", "ledger.d"], in: directory)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: cannot open the processor ledger ledger.d: check that it is a file (not a directory)"), "\(result)")
    }

    @Test func usageErrorsExit64() throws {
        let directory = try TemporaryDirectory()
        let both = try CLIRunner.run(["processor", "triggers", "--json", "--markdown"], in: directory)
        #expect(both.status == 64)
        #expect(both.stderr.hasPrefix("Error: '--json' and '--markdown' exclude each other: pick one\nUsage: paypanel processor triggers [--json | --markdown]"))
        let emptyReference = try CLIRunner.run(["processor", "ledger", "--reference", ""], in: directory)
        #expect(emptyReference.status == 64)
        let badNow = try CLIRunner.run(["processor", "ledger", "--now", "yesterday"], in: directory)
        #expect(badNow.status == 64)
        let noSubcommand = try CLIRunner.run(["processor"], in: directory)
        #expect(noSubcommand.status == 64)
        #expect(noSubcommand.stderr.hasPrefix("Error: 'paypanel processor' needs a subcommand: ledger, triggers"))
    }

    @Test(arguments: [["processor", "--help"], ["processor", "ledger", "--help"], ["processor", "triggers", "--help"]])
    func everyProcessorCommandHasHelp(_ arguments: [String]) throws {
        let result = try CLIRunner.run(arguments, in: try TemporaryDirectory())
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("OVERVIEW: "))
        #expect(result.stdout.contains("USAGE: paypanel processor"))
    }

    @Test func triggersListsEveryTriggerAndCard() throws {
        let result = try CLIRunner.run(["processor", "triggers"], in: try TemporaryDirectory())
        #expect(result.status == 0)
        for trigger in MockTrigger.catalog {
            #expect(result.stdoutLines.contains { $0.hasPrefix(trigger.tableName) }, "\(trigger.tableName) missing")
        }
        for (digits, _) in TestCards.numbers {
            #expect(result.stdout.contains(digits))
        }
        #expect(!result.stdout.contains("`"))
    }

    @Test func triggersAsJSONAndMarkdownMatchTheLibrary() throws {
        let directory = try TemporaryDirectory()
        let json = try CLIRunner.run(["processor", "triggers", "--json"], in: directory)
        let rows = try #require(try JSONParser().parse(json.stdout).arrayValue)
        #expect(rows == TriggerTable.rows().map(\.json))
        #expect(rows.first?["trigger"] == "APPROVE")
        let markdown = try CLIRunner.run(["processor", "triggers", "--markdown"], in: directory)
        #expect(markdown.stdout == TriggerTable.markdown())
    }
}
