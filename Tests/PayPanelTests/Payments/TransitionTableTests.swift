import Foundation
import PayPanel
import Testing

/// Drives the machine through every situation × event pair and checks it against
/// `PaymentTransitionTable`: accepted exactly where the table has a row, reaching the row's
/// status with the row's executor work; rejected everywhere else, with nothing changed.
@Suite struct TransitionTableTests {
    @Test(arguments: Situation.allCases, TableEvent.allCases)
    func machineFollowsTheTable(situation: Situation, event: TableEvent) throws {
        var fixture = try PaymentFixture.make(situation)
        #expect(fixture.intent.status == situation.status, "the fixture for \(situation) is in the wrong status")
        let concrete = fixture.concrete(event)
        for setup in concrete.setup {
            _ = try? fixture.machine.apply(setup, at: fixture.now)
        }
        let before = fixture.machine
        let rule = PaymentTransitionTable.rule(situation, event)
        do {
            let actions = try fixture.machine.apply(concrete.event, at: concrete.at)
            guard let rule else {
                Issue.record("\(situation.label) accepted '\(event.label)' (→ \(fixture.intent.status)), but the table has no such row")
                return
            }
            #expect(fixture.intent.status == rule.to)
            #expect(actions.compactMap(\.summary) == rule.work)
            #expect(PaymentInvariants.violations(from: before, to: fixture.machine) == [])
        } catch {
            #expect(rule == nil, "\(situation.label) rejected '\(event.label)': \(error)")
            #expect(fixture.machine == before, "a rejected event changed the machine")
        }
    }

    @Test func everyRuleIsUniquePerSituationAndEvent() {
        var seen = Set<String>()
        for rule in PaymentTransitionTable.rules {
            #expect(seen.insert("\(rule.situation.rawValue)/\(rule.event.rawValue)").inserted, "duplicate row \(rule)")
        }
    }

    @Test func everyStatusIsReachedAndLeftAsTheDesignSays() {
        let reached = Set(PaymentTransitionTable.rules.map(\.to))
        #expect(reached == Set(PaymentStatus.allCases.filter { $0 != .requiresPaymentMethod }).union([.requiresPaymentMethod]))
        for rule in PaymentTransitionTable.rules where rule.situation.status.isTerminal {
            #expect(rule.to == rule.situation.status, "terminal \(rule.situation.status) left by \(rule.event)")
        }
    }
}
