import Foundation
import PayPanel
import TestSupport
import Testing

/// docs/state-machine.md is generated from the transition table; this test fails when they
/// differ (regenerate with `PAYPANEL_UPDATE_DOCS=1 swift test --filter StateMachineDocumentTests`).
@Suite struct StateMachineDocumentTests {
    static let path = RepositoryPaths.root.appending(path: "docs/state-machine.md").path(percentEncoded: false)

    @Test func documentMatchesTheTransitionTable() throws {
        let expected = StateMachineDocument.markdown()
        if ProcessInfo.processInfo.environment["PAYPANEL_UPDATE_DOCS"] == "1" {
            try Data(expected.utf8).write(to: URL(fileURLWithPath: Self.path))
        }
        let actual = try String(contentsOfFile: Self.path, encoding: .utf8)
        #expect(actual == expected, "docs/state-machine.md is stale: run \(StateMachineDocument.regenerateCommand)")
    }

    @Test func diagramHasEveryStatusAndEveryCrossStatusTransition() {
        let diagram = StateMachineDocument.markdown()
        for status in PaymentStatus.allCases {
            #expect(diagram.contains(status.rawValue))
        }
        for rule in PaymentTransitionTable.rules where rule.situation.status != rule.to {
            #expect(diagram.contains("\(rule.situation.status.rawValue) --> \(rule.to.rawValue) :"))
        }
    }
}
