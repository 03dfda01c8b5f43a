/// Everything the soaks check on a payments database once the dust has settled: the store's
/// own integrity checks, the DESIGN §4 invariants of every intent, the replay of every history,
/// agreement with the processor's ledger, and nothing left waiting for an answer.
package enum PaymentsAudit {
    /// Audits the store behind `ledger`. `effects` is the processor's ledger (nil: skip
    /// the ledger agreement). `expectSettled`: calls still in flight or refunds still pending
    /// count as findings (after a final `reconcile`, nothing should be), and the ledger is
    /// compared as settled (`LedgerAgreement.settled`).
    package static func run(ledger: PaymentLedger, effects: [ProcessorEffect]?, expectSettled: Bool) throws -> AuditReport {
        var report = AuditReport()
        let (integrity, ids) = try ledger.store.read { (try $0.integrityFindings(), try $0.allIntentIDs()) }
        report.integrity += integrity

        var machines: [PaymentStateMachine] = []
        let replay = HistoryReplay(ledger: ledger)
        for id in ids {
            guard let machine = try ledger.loadMachine(id) else { continue }
            machines.append(machine)
            report.invariantViolations += PaymentInvariants.violations(of: machine).map { "\(id): \($0)" }
            report.historyDiscrepancies += try replay.discrepancies(intentID: id)
            if expectSettled {
                if let call = machine.intent.inFlight {
                    report.unsettled.append("\(id) is still processing (\(call.call))")
                }
                for refund in machine.refunds where refund.status == .pending {
                    report.unsettled.append("refund \(refund.id) of \(id) is still pending")
                }
            }
        }
        report.intents = ids.count
        report.attempts = machines.reduce(0) { $0 + $1.attempts.count }
        report.refunds = machines.reduce(0) { $0 + $1.refunds.count }
        report.events = try ledger.store.read { try $0.eventCount() }
        if let effects {
            report.ledgerEntries = effects.count
            report.ledgerDisagreements = LedgerAgreement(machines: machines, effects: effects, settled: expectSettled).disagreements()
        }
        return report
    }
}

/// What `PaymentsAudit` found.
package struct AuditReport: Sendable, Equatable, JSONRepresentable {
    package var intents = 0
    package var attempts = 0
    package var refunds = 0
    package var events = 0
    package var ledgerEntries = 0
    /// `PRAGMA integrity_check` / `foreign_key_check` complaints.
    package var integrity: [String] = []
    /// DESIGN §4 rules broken by a stored intent.
    package var invariantViolations: [String] = []
    /// Where a history does not replay to the stored rows.
    package var historyDiscrepancies: [String] = []
    /// Where the database and the processor's ledger disagree.
    package var ledgerDisagreements: [String] = []
    /// Calls or refunds still waiting for an answer.
    package var unsettled: [String] = []

    /// An empty report.
    package init() {}

    /// Every finding, prefixed by its kind.
    package var findings: [String] {
        integrity.map { "integrity: \($0)" } + invariantViolations.map { "invariant: \($0)" }
            + historyDiscrepancies.map { "history: \($0)" } + ledgerDisagreements.map { "ledger: \($0)" }
            + unsettled.map { "unsettled: \($0)" }
    }

    package var isClean: Bool { findings.isEmpty }

    package var json: JSONValue {
        .orderedObject([
            ("intents", .number(intents)), ("attempts", .number(attempts)), ("refunds", .number(refunds)),
            ("events", .number(events)), ("ledgerEntries", .number(ledgerEntries)),
            ("integrity", .array(integrity.map(JSONValue.string))),
            ("invariantViolations", .array(invariantViolations.map(JSONValue.string))),
            ("historyDiscrepancies", .array(historyDiscrepancies.map(JSONValue.string))),
            ("ledgerDisagreements", .array(ledgerDisagreements.map(JSONValue.string))),
            ("unsettled", .array(unsettled.map(JSONValue.string))),
        ])
    }
}
