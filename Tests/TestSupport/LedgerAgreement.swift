import Foundation
import MockProcessor
import PayPanel

/// `LedgerAgreement` for the tests: the mock processor's ledger, and the DESIGN §4 invariants
/// of every intent, which the comparison takes for granted.
extension LedgerAgreement {
    /// Every broken invariant of `payments` (each intent with its attempts and refunds) and
    /// every disagreement with the mock processor's `ledger`, one sentence each; empty when
    /// they agree. `settled`: see `LedgerAgreement.settled`.
    package static func disagreements(payments: [PaymentStateMachine], ledger: [LedgerEntry], settled: Bool) -> [String] {
        let broken = payments.flatMap { machine in
            PaymentInvariants.violations(of: machine).map { "\(machine.intent.id): invariant broken: \($0)" }
        }
        return broken + LedgerAgreement(machines: payments, effects: ledger.map(ProcessorEffect.init), settled: settled).disagreements()
    }

    /// The same, opening both files with fresh connections (as another process would).
    public static func disagreements(databasePath: String, ledgerPath: String, now: Date, settled: Bool) throws -> [String] {
        let clock = ManualClock(now)
        let repository = PaymentLedger(store: SQLitePaymentStore(database: try Database.openMigrated(path: databasePath, set: .main, clock: clock)))
        var ids: [String] = []
        try repository.forEachIntent(status: nil, limit: nil) { ids.append($0.id) }
        let machines = try ids.compactMap { try repository.loadMachine($0) }
        let ledger = try ProcessorLedger(path: ledgerPath, clock: clock).entries(now: now)
        return disagreements(payments: machines, ledger: ledger, settled: settled)
    }
}
