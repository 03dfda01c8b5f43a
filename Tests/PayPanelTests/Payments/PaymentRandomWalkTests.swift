import Foundation
import PayPanel
import Testing

/// Random sequences of events (seeded, so a failure replays): after every accepted event the
/// invariants hold and each change of status wrote exactly one intent outbox message; every
/// rejected event left the machine exactly as it was.
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
            } catch {
                #expect(fixture.machine == before, "seed \(seed) step \(step): a rejected \(concrete.event.name) changed the machine")
            }
        }
        #expect(accepted > 0)
    }
}
