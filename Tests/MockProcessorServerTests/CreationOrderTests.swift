import Foundation
import PayPanel
import Testing

@testable import MockProcessorServer

/// The account's tables page and index without scanning; these check they answer exactly what
/// the plain arrays they replace answered.
@Suite("processor serve: creation order and object tables")
struct CreationOrderTests {
    /// Stripe's paging over a newest-first array, as `Pagination` did before `CreationOrder`.
    static func reference(_ newestFirst: [String], after: String?, before: String?, limit: Int) -> (ids: [String], hasMore: Bool)? {
        if let after {
            guard let index = newestFirst.firstIndex(of: after) else { return nil }
            let rest = newestFirst[(index + 1)...]
            return (Array(rest.prefix(limit)), rest.count > limit)
        }
        if let before {
            guard let index = newestFirst.firstIndex(of: before) else { return nil }
            let earlier = newestFirst[..<index]
            return (Array(earlier.suffix(limit)), earlier.count > limit)
        }
        return (Array(newestFirst.prefix(limit)), newestFirst.count > limit)
    }

    @Test("Every page (no cursor, starting_after, ending_before; limits 1 to 6) matches the array's, through appends and removals that leave and squeeze out empty slots")
    func pagesMatchTheArrays() {
        var order = CreationOrder()
        var ids: [String] = []  // oldest first
        var generator = SplitMix(state: 24)
        var next = 0
        for step in 0..<600 {
            // Mostly appends; removals anywhere (the newest most often, as an undone creation is).
            if ids.isEmpty || Int.random(in: 0..<3, using: &generator) > 0 {
                let id = "pi_\(next)"
                next += 1
                order.append(id)
                ids.append(id)
            } else {
                let index = Bool.random(using: &generator) ? ids.count - 1 : Int.random(in: 0..<ids.count, using: &generator)
                order.remove(ids.remove(at: index))
            }
            guard step % 37 == 0 || step == 599 else { continue }
            let newestFirst = Array(ids.reversed())
            #expect(order.count == ids.count)
            #expect(Array(order.newestFirst) == newestFirst)
            for limit in 1...6 {
                let cursors: [String?] = [nil] + newestFirst.map(Optional.some) + ["pi_missing"]
                for cursor in cursors {
                    let afterPage = order.page(after: cursor, before: nil, limit: limit)
                    let afterExpected = Self.reference(newestFirst, after: cursor, before: nil, limit: limit)
                    #expect(afterPage?.ids == afterExpected?.ids && afterPage?.hasMore == afterExpected?.hasMore, "step \(step), starting_after \(cursor ?? "-"), limit \(limit)")
                    guard let cursor else { continue }
                    let beforePage = order.page(after: nil, before: cursor, limit: limit)
                    let beforeExpected = Self.reference(newestFirst, after: nil, before: cursor, limit: limit)
                    #expect(beforePage?.ids == beforeExpected?.ids && beforePage?.hasMore == beforeExpected?.hasMore, "step \(step), ending_before \(cursor), limit \(limit)")
                }
            }
        }
    }

    /// A fixed sequence of pseudo-random numbers (SplitMix64): the same walk on every run.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func intent(_ id: String, metadata: [(String, String)]) throws -> StoredIntent {
        StoredIntent(
            id: id, clientSecret: id + "_secret", amount: 1000, currency: try Currency(code: "USD"), captureMethod: "manual",
            description: nil, metadata: metadata, created: Date(timeIntervalSince1970: 0), status: "requires_capture", paymentMethod: nil)
    }

    @Test("An object table keeps its index, its order and its change set through sets, changes in place and removals")
    func tablesKeepTheirIndexAndChanges() throws {
        var table = ObjectTable<StoredIntent>()
        let key = StoredIntent.metadataIndexKey("attempt_id", "att_1")
        table.load(try Self.intent("pi_a", metadata: [("attempt_id", "att_1")]), id: "pi_a", position: 7)
        #expect(table.changed.isEmpty, "loaded from the store: nothing to write")
        table["pi_b"] = try Self.intent("pi_b", metadata: [("attempt_id", "att_1")])
        table["pi_c"] = try Self.intent("pi_c", metadata: [])
        #expect(table.position(of: "pi_b") == 8 && table.position(of: "pi_c") == 9, "positions continue after the loaded ones")
        #expect(table.ids(withIndexKey: key).map { Array($0.newestFirst) } == ["pi_b", "pi_a"])
        table.markSaved()
        table["pi_a"]?.status = "succeeded"
        #expect(table.changed == ["pi_a"], "a change in place is recorded")
        table["pi_a"]?.metadata = [("attempt_id", "att_2")]
        #expect(table.ids(withIndexKey: key).map { Array($0.newestFirst) } == ["pi_b"])
        #expect(table.ids(withIndexKey: StoredIntent.metadataIndexKey("attempt_id", "att_2")).map { Array($0.newestFirst) } == ["pi_a"])
        #expect(table.removeValue(forKey: "pi_b")?.id == "pi_b")
        #expect(table.ids(withIndexKey: key).map(\.count) == nil, "an index key no object has is gone")
        #expect(table.changed == ["pi_a", "pi_b"] && table.count == 2 && table.position(of: "pi_b") == nil)
        #expect(Array(table.order.newestFirst) == ["pi_c", "pi_a"])
    }
}
