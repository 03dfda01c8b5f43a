@testable import PayPanel
import Synchronization
import Testing

@Suite struct BatchedRandomNumberGeneratorTests {
    /// Counts how often, and for how many bytes, the generator asks its source.
    final class CountingSource: RandomByteSource {
        let inner = SeededRandomBytes(seed: "batched")
        let requests = Mutex<[Int]>([])

        func bytes(_ count: Int) -> [UInt8] {
            requests.withLock { $0.append(count) }
            return inner.bytes(count)
        }
    }

    @Test func itServesTheSourcesBytesAndAsksForThemOncePerThirtyTwoValues() {
        let source = CountingSource()
        var generator = BatchedRandomNumberGenerator(source: source)
        let values = (0..<33).map { _ in generator.next() }
        // 32 values from one request of 256 bytes; the 33rd needs a second request.
        #expect(source.requests.withLock { $0 } == [256, 256])

        // The values are the source's bytes, eight at a time, most significant first.
        let expected = SeededRandomBytes(seed: "batched").bytes(512)
        let first = expected[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let thirtySecond = expected[248..<256].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let thirtyThird = expected[256..<264].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(values[0] == first)
        #expect(values[31] == thirtySecond)
        #expect(values[32] == thirtyThird)
    }

    @Test func anIDCostsOneRequestToTheSource() {
        let source = CountingSource()
        var generator = BatchedRandomNumberGenerator(source: source)
        let id = PaymentIDs.make(.intent, using: &generator)
        #expect(PaymentIDs.isWellFormed(id, kind: .intent))
        #expect(source.requests.withLock { $0.count } == 1)
    }

    /// `SystemRandomNumberGenerator` makes one `getrandom` system call per 64-bit word, so an
    /// id of 24 characters cost 24 of them: the mock processor's object ids still did (99 calls
    /// per `bench processor` flow) after the payment ids had moved to this generator. So the
    /// sources use it nowhere, not even for one word: a rule with exceptions is the one a
    /// new id generator copies from the wrong place.
    @Test func noSourceDrawsFromTheSystemGeneratorAWordAtATime() throws {
        let (found, filesRead) = try SourceCommentTests.codeLines(containing: "SystemRandomNumberGenerator")
        #expect(filesRead > 300, "the walk found the sources")
        #expect(found.isEmpty, "use BatchedRandomNumberGenerator instead:\n\(found.joined(separator: "\n"))")
    }
}
