import Foundation
import Testing
import TestSupport

/// Comments explain the code as it is. An issue number sends the reader to a tracker they may
/// not have, for a reason the comment should give itself.
@Suite struct SourceCommentTests {
    /// Each line of the files under `folder` (of the repository) whose names end in one of
    /// `suffixes`: the file's path inside `folder`, the line's number from 1, the line. Every
    /// source lint here reads the tree through it.
    static func lines(under folder: String, suffixes: [String] = [".swift"]) throws -> [(file: String, number: Int, line: Substring)] {
        let root = RepositoryPaths.root.appending(path: folder)
        let files = try #require(FileManager.default.enumerator(atPath: root.path(percentEncoded: false)))
            .compactMap { $0 as? String }.filter { name in suffixes.contains { name.hasSuffix($0) } }
        return try files.flatMap { file in
            try String(contentsOf: root.appending(path: file), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { (file, $0 + 1, $1) }
        }
    }

    /// The lines of Swift code under `Sources` (comments cut off) that contain `text`, outside
    /// the files `allowed` accepts, as `Sources/<file>:<line>: <code>`; and how many files were
    /// read, so a lint can tell an empty finding from a walk that found no sources.
    static func codeLines(containing text: String, allowed: (String) -> Bool = { _ in false }) throws -> (found: [String], filesRead: Int) {
        var files = Set<String>()
        var found: [String] = []
        for (file, number, line) in try lines(under: "Sources") {
            files.insert(file)
            let code = line.firstRange(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
            if code.contains(text) && !allowed(file) {
                found.append("Sources/\(file):\(number): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        return (found, files.count)
    }

    @Test func noCommentInSourcesOrTestsCitesAnIssueNumber() throws {
        let citation = /[Ii]ssues? #?[0-9]+|\(#[0-9]+\)/
        var found: [String] = []
        var read: Set<String> = []
        for folder in ["Sources", "Tests"] {
            for (file, number, line) in try Self.lines(under: folder) {
                read.insert(folder + "/" + file)
                guard let comment = line.firstRange(of: "//").map({ line[$0.lowerBound...] }) else { continue }
                if comment.contains(citation) { found.append("\(folder)/\(file):\(number): \(line.trimmingCharacters(in: .whitespaces))") }
            }
        }
        #expect(read.count > 300, "the walk found the sources")
        #expect(found.isEmpty, "comments citing issue numbers:\n\(found.joined(separator: "\n"))")
    }

    /// A test that runs only where something exists must say, when skipped, what was missing:
    /// a silent skip reads as a pass.
    @Test func everyConditionalTestSaysWhyItIsSkipped() throws {
        var silent: [String] = []
        var conditional = 0
        for (file, number, line) in try Self.lines(under: "Tests")
        where !file.hasSuffix("SourceCommentTests.swift") && (line.contains(".enabled(if:") || line.contains(".disabled(if:")) {
            conditional += 1
            // The trait's comment is its second argument: a string literal or a `Comment`.
            if !line.contains(#", ""#) && !line.contains("Comment(") { silent.append("Tests/\(file):\(number)") }
        }
        #expect(conditional > 5, "the walk found the conditional tests")
        #expect(silent.isEmpty, "conditional tests with no reason for their skip:\n\(silent.joined(separator: "\n"))")
    }

    /// The payments ledger (`PaymentLedger`) has one name; "repository" in the code means the
    /// git repository only (its files, "in the repository").
    @Test func theLedgerIsNotCalledARepositoryInSources() throws {
        let found = try Self.lines(under: "Sources")
            .filter { $0.line.contains(/\b[Rr]epository\b/) && !$0.line.contains(/(in|into|from) the repository\b/) }
            .map { "Sources/\($0.file):\($0.number): \($0.line.trimmingCharacters(in: .whitespaces))" }
        #expect(found.isEmpty, "say ledger (PaymentLedger):\n\(found.joined(separator: "\n"))")
    }
}
