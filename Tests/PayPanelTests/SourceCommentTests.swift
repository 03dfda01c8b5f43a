import Foundation
import Testing
import TestSupport

/// Comments explain the code as it is. An issue number sends the reader to a tracker they may
/// not have, for a reason the comment should give itself.
@Suite struct SourceCommentTests {
    @Test func noCommentInSourcesOrTestsCitesAnIssueNumber() throws {
        let citation = /[Ii]ssues? #?[0-9]+|\(#[0-9]+\)/
        var found: [String] = []
        var read = 0
        for folder in ["Sources", "Tests"] {
            let root = RepositoryPaths.root.appending(path: folder)
            let files = try #require(FileManager.default.enumerator(atPath: root.path(percentEncoded: false)))
                .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
            for file in files {
                let text = try String(contentsOf: root.appending(path: file), encoding: .utf8)
                read += 1
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    guard let comment = line.firstRange(of: "//").map({ line[$0.lowerBound...] }) else { continue }
                    if comment.contains(citation) { found.append("\(folder)/\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))") }
                }
            }
        }
        #expect(read > 300, "the walk found the sources")
        #expect(found.isEmpty, "comments citing issue numbers:\n\(found.joined(separator: "\n"))")
    }

    /// A test that runs only where something exists must say, when skipped, what was missing:
    /// a silent skip reads as a pass.
    @Test func everyConditionalTestSaysWhyItIsSkipped() throws {
        let root = RepositoryPaths.root.appending(path: "Tests")
        let files = try #require(FileManager.default.enumerator(atPath: root.path(percentEncoded: false)))
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        var silent: [String] = []
        var conditional = 0
        for file in files where !file.hasSuffix("SourceCommentTests.swift") {
            let text = try String(contentsOf: root.appending(path: file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(".enabled(if:") || line.contains(".disabled(if:") {
                conditional += 1
                // The trait's comment is its second argument: a string literal or a `Comment`.
                if !line.contains(#", ""#) && !line.contains("Comment(") { silent.append("Tests/\(file):\(number + 1)") }
            }
        }
        #expect(conditional > 5, "the walk found the conditional tests")
        #expect(silent.isEmpty, "conditional tests with no reason for their skip:\n\(silent.joined(separator: "\n"))")
    }

    /// The payments ledger (`PaymentLedger`) has one name; "repository" in the code means the
    /// git repository only (its files, "in the repository").
    @Test func theLedgerIsNotCalledARepositoryInSources() throws {
        let root = RepositoryPaths.root.appending(path: "Sources")
        let files = try #require(FileManager.default.enumerator(atPath: root.path(percentEncoded: false)))
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: root.appending(path: file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(/\b[Rr]epository\b/) && !line.contains(/(in|into|from) the repository\b/) {
                found.append("Sources/\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(found.isEmpty, "say ledger (PaymentLedger):\n\(found.joined(separator: "\n"))")
    }
}
