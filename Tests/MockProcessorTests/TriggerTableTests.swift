import Foundation
import MockProcessor
import PayPanel
import Testing
import TestSupport

/// The trigger table people read is the one the code uses.
@Suite struct TriggerTableTests {
    @Test func theDocsHoldTheGeneratedTriggerTable() throws {
        let path = RepositoryPaths.root.appending(path: "docs/mock-processor.md").path(percentEncoded: false)
        let doc = try String(contentsOfFile: path, encoding: .utf8)
        let begin = try #require(doc.range(of: "<!-- trigger-table:begin -->\n"))
        let end = try #require(doc.range(of: "<!-- trigger-table:end -->"))
        let documented = String(doc[begin.upperBound..<end.lowerBound])
        #expect(documented == TriggerTable.markdown(), "regenerate the table with 'paypanel processor triggers --markdown'")
    }

    @Test func everyTriggerAndEveryTestCardHasARow() {
        let rows = TriggerTable.rows()
        for trigger in MockTrigger.catalog {
            #expect(rows.contains { $0.trigger == trigger.tableName })
        }
        let listedCards = Set(rows.flatMap(\.cards))
        #expect(listedCards == Set(TestCards.numbers.map(\.digits)))
        #expect(rows.allSatisfy { !$0.authorize.isEmpty && !$0.lookup.isEmpty })
    }

    @Test func everyTestCardIsAValidCardNumber() throws {
        for (digits, _) in TestCards.numbers {
            #expect(try CardNumber(digits).digits == digits)
        }
    }

    @Test func theTableReflectsTheConfiguration() {
        let markdown = TriggerTable.markdown(
            configuration: MockProcessorConfiguration(cryptogramLifetime: .seconds(300), refundSettlementDelay: .seconds(7200)))
        #expect(markdown.contains("(cryptogram older than 5 min)"))
        #expect(markdown.contains("succeed 2 h later"))
    }
}
