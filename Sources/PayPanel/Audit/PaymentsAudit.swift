/// Everything the soaks check on a payments database once the dust has settled: the store's
/// own integrity checks, the DESIGN §4 invariants of every intent, the replay of every history,
/// agreement with the processor's ledger, and nothing left waiting for an answer.
public enum PaymentsAudit {
    /// Audits the store behind `ledger`. `effects` is the processor's ledger (nil: skip
    /// the ledger agreement). `expectSettled`: calls still in flight or refunds still pending
    /// count as findings (after a final `reconcile`, nothing should be), and the ledger is
    /// compared as settled (`LedgerAgreement.settled`).
    public static func run(ledger: PaymentLedger, effects: [ProcessorEffect]?, expectSettled: Bool) throws -> AuditReport {
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
public struct AuditReport: Sendable, Equatable, JSONRepresentable {
    public var intents = 0
    public var attempts = 0
    public var refunds = 0
    public var events = 0
    public var ledgerEntries = 0
    /// `PRAGMA integrity_check` / `foreign_key_check` complaints.
    public var integrity: [String] = []
    /// DESIGN §4 rules broken by a stored intent.
    public var invariantViolations: [String] = []
    /// Where a history does not replay to the stored rows.
    public var historyDiscrepancies: [String] = []
    /// Where the database and the processor's ledger disagree.
    public var ledgerDisagreements: [String] = []
    /// Calls or refunds still waiting for an answer.
    public var unsettled: [String] = []

    /// An empty report.
    public init() {}

    /// Every finding, prefixed by its kind.
    public var findings: [String] {
        integrity.map { "integrity: \($0)" } + invariantViolations.map { "invariant: \($0)" }
            + historyDiscrepancies.map { "history: \($0)" } + ledgerDisagreements.map { "ledger: \($0)" }
            + unsettled.map { "unsettled: \($0)" }
    }

    public var isClean: Bool { findings.isEmpty }

    public var json: JSONValue {
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
