import Foundation
import PayPanel
import Testing
import TestSupport

/// `Base62`, the one maker of base-62 ids and secrets: every character equally likely from
/// each source, derived text stable per seed, and no other maker left in Sources.
@Suite struct Base62Tests {
    /// A byte source that counts through 0…255 again and again: every byte value equally often,
    /// so the characters it makes are exactly as uniform as the rejection makes them.
    struct CountingBytes: RandomByteSource {
        let start: UInt8
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: Int(start) + $0) } }
    }

    /// Each character's count in `text`.
    static func counts(_ text: String) -> [UInt8: Int] {
        text.utf8.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    @Test func everyCharacterIsEquallyLikelyFromRandomBytes() {
        // 248 accepted bytes per 256 read: 62 × 4 characters each round, each character 4 times.
        let text = Base62.random(length: 62 * 4 * 50, from: CountingBytes(start: 0))
        let counts = Self.counts(text)
        #expect(counts.count == 62)
        #expect(Set(counts.values) == [200], "each of the 62 characters 200 times: \(counts.values.sorted())")
    }

    @Test func everyCharacterIsAboutEquallyLikelyFromASeededGeneratorAndFromDerivation() {
        var random = SeededRandomNumberGenerator(seed: 7)
        let drawn = Base62.random(length: 62_000, using: &random)
        let derived = (0..<2_000).map { Base62.derived(from: "seed \($0)", length: 31) }.joined()
        for (source, text) in [("drawn", drawn), ("derived", derived)] {
            let counts = Self.counts(text)
            #expect(counts.count == 62, "\(source)")
            // Expected 1,000 each; `byte % 62` without rejection gives the first eight about 1,230.
            let firstEight = Base62.alphabet.prefix(8).map { counts[$0] ?? 0 }
            let rest = Base62.alphabet.dropFirst(8).map { counts[$0] ?? 0 }
            let meanFirst = Double(firstEight.reduce(0, +)) / 8, meanRest = Double(rest.reduce(0, +)) / 54
            #expect(abs(meanFirst / meanRest - 1) < 0.06, "\(source): first eight \(meanFirst), others \(meanRest)")
        }
    }

    @Test func derivedTextDependsOnlyOnItsSeed() {
        #expect(Base62.derived(from: "pi\u{0}acct_1\u{0}order-1", length: 24) == Base62.derived(from: "pi\u{0}acct_1\u{0}order-1", length: 24))
        #expect(Base62.derived(from: "pi\u{0}acct_1\u{0}order-1", length: 24) != Base62.derived(from: "pi\u{0}acct_1\u{0}order-2", length: 24))
        // Longer than one SHA-256 block's accepted bytes: the next block is read.
        let long = Base62.derived(from: "x", length: 100)
        #expect(long.utf8.count == 100 && long.utf8.allSatisfy { Base62.alphabet.contains($0) })
        #expect(long.hasPrefix(Base62.derived(from: "x", length: 24)))
    }

    @Test func aSeedGivesTheSameIds() {
        var first = SeededRandomNumberGenerator(seed: 42), second = SeededRandomNumberGenerator(seed: 42)
        #expect(Base62.random(length: 24, using: &first) == Base62.random(length: 24, using: &second))
        #expect(PaymentIDs.make(.intent, using: &first) == PaymentIDs.make(.intent, using: &second))
    }

    /// The class of the bias this type removed: text made by `% 62`, `% 26` or `% alphabet.count`
    /// from random bytes. Only `Base62` may map bytes onto an alphabet.
    @Test func noOtherCodeMapsRandomBytesOntoAnAlphabet() throws {
        let lines = try SourceCommentTests.lines(under: "Sources", suffixes: [".swift", ".js"]).filter { !$0.file.hasSuffix("/Base62.swift") }
        // A modulo the line itself guards with a rejection bound (`b < 234 && … % 26`) is fine.
        let pattern = /%\s*(62|26|36|alphabet\.count)\b/
        let found = lines.filter { $0.line.contains(pattern) && !$0.line.contains(/<\s*(248|234)\b/) }
            .map { "Sources/\($0.file):\($0.number): \($0.line.trimmingCharacters(in: .whitespaces))" }
        let files = Set(lines.map(\.file))
        #expect(files.count > 300)
        #expect(files.contains { $0.hasSuffix("demo.js") }, "the pages' scripts are read too")
        #expect(found.isEmpty, "use Base62 instead:\n\(found.joined(separator: "\n"))")
    }
}
