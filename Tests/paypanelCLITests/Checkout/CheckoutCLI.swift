import Foundation
import Synchronization
import PayPanel
import TestSupport
import Testing

/// One test's run of the checkout commands: its own directory (so the default
/// `paypanel.sqlite` and `paypanel-processor.sqlite` are its own), virtual time through
/// `$PAYPANEL_NOW`, and helpers to read the results and compare both ledgers.
struct CheckoutCLI {
    static let start = "2026-11-29T12:00:00Z"
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory("paypanel-checkout-cli")
    }

    /// Runs `paypanel arguments` at `now` (virtual time), with `$PAYPANEL_FAULT` (the process is
    /// killed there) or `$PAYPANEL_STORE_FAULT` (the step after it fails once) armed when given.
    func run(
        _ arguments: [String], now: String = CheckoutCLI.start, fault: String? = nil, storeFault: String? = nil, timeout: TimeInterval = 60
    ) throws -> CLIResult {
        var environment = ["PAYPANEL_NOW": now]
        if let fault { environment["PAYPANEL_FAULT"] = fault }
        if let storeFault { environment["PAYPANEL_STORE_FAULT"] = storeFault }
        return try CLIRunner.run(arguments, in: directory, environment: environment, timeout: timeout)
    }

    /// The JSON on standard output.
    func json(_ result: CLIResult) throws -> JSONValue {
        try JSONParser().parse(result.stdout)
    }

    /// Creates an intent and returns its id.
    func createIntent(_ amount: String = "10.00", capture: String = "manual") throws -> String {
        let result = try run(["payments", "create", "--amount", amount, "--capture", capture, "--json"])
        #expect(result.status == 0, "\(result)")
        return try #require(try json(result)["id"]?.stringValue)
    }

    /// An intent authorized with `card` (requires_capture for a manual one); its id.
    func authorizedIntent(_ amount: String = "10.00", card: String = "4242424242424242", holder: String? = nil, capture: String = "manual") throws -> String {
        let id = try createIntent(amount, capture: capture)
        let result = try run(["payments", "authorize", id, "--card", card] + (holder.map { ["--holder", $0] } ?? []))
        #expect(result.status == 0, "\(result)")
        return id
    }

    /// An intent authorized and captured in full; its id.
    func capturedIntent(_ amount: String = "100.00", holder: String? = nil) throws -> String {
        let id = try authorizedIntent(amount, holder: holder)
        let result = try run(["payments", "capture", id])
        #expect(result.status == 0, "\(result)")
        return id
    }

    /// `payments show ID --json`.
    func show(_ id: String) throws -> JSONValue {
        let result = try run(["payments", "show", id, "--json"])
        #expect(result.status == 0, "\(result)")
        return try json(result)
    }

    /// `processor ledger --json`, as `operation:status` strings in ledger order; empty while
    /// nothing was ever sent to the processor (the ledger file does not exist yet).
    func ledger(reference: String? = nil) throws -> [String] {
        guard FileManager.default.fileExists(atPath: directory.file("paypanel-processor.sqlite")) else { return [] }
        let result = try run(["processor", "ledger", "--json"] + (reference.map { ["--reference", $0] } ?? []))
        #expect(result.status == 0, "\(result)")
        return try json(result).arrayValue?.map {
            "\($0["operation"]?.stringValue ?? "?"):\($0["status"]?.stringValue ?? "?")"
        } ?? []
    }

    /// Every disagreement between the payments database and the processor's ledger.
    func disagreements(settled: Bool, now: String = CheckoutCLI.start) throws -> [String] {
        try LedgerAgreement.disagreements(
            databasePath: directory.file("paypanel.sqlite"), ledgerPath: directory.file("paypanel-processor.sqlite"),
            now: try Timestamp.parse(now), settled: settled)
    }
}
