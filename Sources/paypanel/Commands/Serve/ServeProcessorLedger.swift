import Foundation
import MockProcessor
import PayPanel
import PayPanelHTTP

/// The in-process mock processor's ledger as the console reads it: a connection of its own to
/// the `--processor-db` file (the mock writes through another), read one attempt at a time.
/// Only network, last four, amounts and outcomes leave it (`ProcessorLedgerRow`).
actor MockProcessorLedgerReader: ProcessorLedgerReading {
    /// Its own thread: the synchronous store calls below block it, never the cooperative pool
    /// (`ActorThread`).
    private let thread = ActorThread(name: "processor-ledger-reader")
    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    deinit { thread.stop() }
    private let ledger: ProcessorLedger
    private let clock: any WallClock

    init(path: String, clock: any WallClock) throws {
        ledger = try ProcessorLedger(path: path, clock: clock)
        self.clock = clock
    }

    func entries(ofAttempts attemptIDs: [String]) async -> ProcessorLedgerView {
        do {
            var rows: [ProcessorLedgerRow] = []
            for attemptID in attemptIDs {
                rows += try ledger.entries(reference: attemptID, now: clock.now()).map(Self.row)
            }
            return .rows(rows)
        } catch {
            return .unavailable(reason: "the mock processor's ledger \(ledger.path) cannot be read: \((error as? any PayPanelError)?.message ?? String(describing: error))")
        }
    }

    static func row(_ entry: LedgerEntry) -> ProcessorLedgerRow {
        ProcessorLedgerRow(
            processorID: entry.processorID, reference: entry.reference, operation: entry.operation.rawValue,
            refundReference: entry.refundReference, amount: entry.amount.minorUnits, currency: entry.amount.currency.code,
            status: entry.status.rawValue, declineCode: entry.declineCode?.rawValue, network: entry.network, last4: entry.last4,
            createdAt: entry.createdAt)
    }
}

extension ParsedArguments {
    /// What the console's processor-ledger route reads: the HTTP processor's admin endpoint with
    /// `--processor`, else the in-process mock's ledger file.
    func processorLedgerReader(environment: [String: String], clock: any WallClock) throws -> any ProcessorLedgerReading {
        if let http = try httpProcessor(environment: environment) { return http }
        return try MockProcessorLedgerReader(path: processorDatabasePath(environment: environment), clock: clock)
    }
}
