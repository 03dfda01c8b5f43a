import Foundation
import MockProcessor
import PayPanel

// The end of the processor crash soak: both ledgers side by side.
extension ProcessorCrashSoak {
    /// Learns from processor serve which PaymentIntent and Refund stand for which of serve's
    /// attempts and refunds (their metadata), stops both servers, then audits serve's database
    /// against processor serve's ledger file translated into serve's references.
    func audit() throws {
        try reviveServers()
        let (attempts, refunds) = try processor.map { try SoakLedger.processorDirectory(port: $0.port, key: configuration.processorKey) } ?? ([:], [:])
        if let serve {
            let status = serve.stop()
            if status != 0 { report.findings.append("serve exited with status \(status) on SIGTERM at the end") }
        }
        if let processor {
            let status = processor.stop()
            if status != 0 { report.findings.append("processor serve exited with status \(status) on SIGTERM at the end") }
        }
        let now = try Timestamp.parse(configuration.processorNow)
        let entries = try ProcessorLedger(path: configuration.ledgerPath, clock: ManualClock(now)).entries(now: now)
        let effects = entries.map { SoakLedger.translated(ProcessorEffect($0), attempts: attempts, refunds: refunds) }
        let database = try Database.openMigrated(path: configuration.databasePath, set: .main, clock: ManualClock(now))
        report.audit = try PaymentsAudit.run(
            ledger: PaymentLedger(store: SQLitePaymentStore(database: database), policy: SoakServerLauncher.policy), effects: effects, expectSettled: true)
        report.findings += SoakLedger.cardDataInOutput(directory: configuration.directory)
    }
}
