import Foundation
import PayPanel
import Testing

/// Random sequences of events (seeded, so a failure replays): after every accepted event the
/// invariants hold, each change of status wrote exactly one intent outbox message, and the job
/// the event is not for kept its state (a refund event changes only the refund ledger, any
/// other event leaves it alone); every rejected event left the machine exactly as it was.
@Suite struct PaymentRandomWalkTests {
    @Test(arguments: 0..<40)
    func invariantsHoldAlongRandomWalks(seed: UInt64) throws {
        var random = SeededRandomNumberGenerator(seed: seed)
        var fixture = PaymentFixture(captureMethod: Bool.random(using: &random) ? .manual : .automatic)
        var accepted = 0
        for step in 0..<60 {
            guard let pick = TableEvent.allCases.randomElement(using: &random) else { return }
            var concrete = fixture.concrete(pick)
            switch concrete.event {
            case .attemptOpened:
                let opening = AttemptOpening(
                    attemptID: "att_\(step)", source: .applePay, card: PaymentFixture.card(), amount: fixture.intent.amount,
                    answersPaymentSheet: Bool.random(using: &random))
                concrete.event = .attemptOpened(opening)
            case .refundRequested(_, _, let reason):
                concrete.event = .refundRequested(refundID: "re_\(step)", amount: Int64.random(in: 1...600, using: &random), reason: reason)
            default:
                break
            }
            for setup in concrete.setup { _ = try? fixture.machine.apply(setup, at: fixture.now) }
            let before = fixture.machine
            let at = max(concrete.at, fixture.now)
            do {
                let actions = try fixture.machine.apply(concrete.event, at: at)
                fixture.now = at
                accepted += 1
                #expect(PaymentInvariants.violations(from: before, to: fixture.machine) == [], "seed \(seed) step \(step): \(concrete.event.name)")
                let intentMessages = actions.filter {
                    if case .emitOutbox(_, nil) = $0 { return true }
                    return false
                }
                #expect(intentMessages.count == (before.intent.status == fixture.intent.status ? 0 : 1))
                let problem = Self.crossedJobs(concrete.event, before: before, after: fixture.machine)
                #expect(problem == nil, "seed \(seed) step \(step): \(concrete.event.name) \(problem ?? "")")
            } catch {
                #expect(fixture.machine == before, "seed \(seed) step \(step): a rejected \(concrete.event.name) changed the machine")
            }
        }
        #expect(accepted > 0)
    }

    /// The intent's refund totals: the refund ledger's part of the intent's row.
    static let refundTotals: Set<String> = ["amountRefunded", "amountRefundPending"]
    /// Stamped on every accepted event, whichever job it was for.
    static let stamps: Set<String> = ["version", "updatedAt"]

    /// What `event` changed outside its own job, or nil. The test sorts events itself (the
    /// refund's own events, and the processor's, the lookups' and the operator's word on a
    /// refund), so a wrong sort in the machine shows here too. A succeeded intent takes refund
    /// events only (`rejectIfFinal`), and refunds exist only there, so today it is the refund
    /// side that the walks reach; the other side holds for an event that could one day cross.
    static func crossedJobs(_ event: PaymentEvent, before: PaymentStateMachine, after: PaymentStateMachine) -> String? {
        if isRefundEvent(event) {
            if before.attempts != after.attempts { return "(a refund event) changed an attempt" }
            let changed = changedFields(before.intent, after.intent).subtracting(refundTotals).subtracting(stamps)
            return changed.isEmpty ? nil : "(a refund event) changed the intent's \(changed.sorted())"
        }
        if before.refunds != after.refunds { return "(not a refund event) changed a refund" }
        let changed = changedFields(before.intent, after.intent).intersection(refundTotals)
        return changed.isEmpty ? nil : "(not a refund event) changed the intent's \(changed.sorted())"
    }

    static func isRefundEvent(_ event: PaymentEvent) -> Bool {
        switch event {
        case .refundRequested, .operatorResolved(.refund, _): true
        case .processorAnswered(let call, _), .reconciliationFound(let call, _), .reconciliationNotFound(let call),
            .reconciliationUnavailable(let call, _), .reconciliationExhausted(let call):
            if case .refund = call { true } else { false }
        default: false
        }
    }

    /// The names of the intent's stored fields that differ, read by reflection so that a field
    /// added later is compared too.
    static func changedFields(_ before: PaymentIntent, _ after: PaymentIntent) -> Set<String> {
        let old = Mirror(reflecting: before).children
        let new = Mirror(reflecting: after).children
        var changed = Set<String>()
        for (a, b) in zip(old, new) where String(reflecting: a.value) != String(reflecting: b.value) {
            changed.insert(a.label ?? "?")
        }
        return changed
    }
}
