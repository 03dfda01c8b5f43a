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
}
