import Foundation
import Testing
import TestSupport

/// The `PayPanel` product exports what a merchant's backend calls and nothing more: every other
/// declaration is `package` (seen by this package's targets and tests, not by other packages).
/// The public types are listed in docs/architecture.md ("The public surface"); this test keeps
/// that list and the sources in step and the surface small.
@Suite struct PublicSurfaceTests {
    /// The most public top-level types the product may have.
    static let limit = 150

    /// The names of the top-level types declared `public` or `open` in Sources/PayPanel, without
    /// Storage/PostgreSQL (which is leaving the target). A declaration counts when it starts at
    /// the beginning of its line, as every top-level one in the sources does; nested types are
    /// part of their outer type and not counted.
    static func publicTypeNames() throws -> [String: String] {
        let declaration = /^(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:final|indirect|nonisolated)\s+)*(?:struct|class|enum|protocol|actor|typealias)\s+(?<name>[A-Za-z_][A-Za-z0-9_]*)/
        var names: [String: String] = [:]
        for (file, number, line) in try SourceCommentTests.lines(under: "Sources/PayPanel")
        where !file.hasPrefix("Storage/PostgreSQL/") {
            if let match = line.prefixMatch(of: declaration) { names[String(match.name)] = "Sources/PayPanel/\(file):\(number)" }
        }
        return names
    }

    /// The names listed in docs/architecture.md under "## The public surface": the first
    /// backquoted word of each bullet, up to the next second-level heading.
    static func documentedNames() throws -> [String] {
        let page = try String(contentsOf: RepositoryPaths.root.appending(path: "docs/architecture.md"), encoding: .utf8)
        let bullet = /^- `(?<name>[A-Za-z_][A-Za-z0-9_]*)`/
        var inSection = false
        var names: [String] = []
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { inSection = line == "## The public surface" }
            if inSection, let match = line.prefixMatch(of: bullet) { names.append(String(match.name)) }
        }
        return names
    }

    @Test func theProductHasAtMostLimitPublicTypes() throws {
        let names = try Self.publicTypeNames()
        #expect(names.count > 20, "the walk found the public types")
        #expect(names.count <= Self.limit, "\(names.count) public types, more than \(Self.limit)")
    }

    @Test func thePublicTypesAreTheOnesDocumentedInArchitectureMd() throws {
        let declared = try Self.publicTypeNames()
        let documented = try Self.documentedNames()
        #expect(documented.count > 20, "docs/architecture.md has a \"## The public surface\" section listing the types")
        let duplicates = Dictionary(grouping: documented, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(duplicates.isEmpty, "listed twice in docs/architecture.md: \(duplicates)")
        let undocumented = declared.keys.filter { !documented.contains($0) }.sorted().map { "\($0) (\(declared[$0]!))" }
        let notPublic = Set(documented).subtracting(declared.keys).sorted()
        #expect(undocumented.isEmpty, "public in Sources/PayPanel but not listed under \"The public surface\" in docs/architecture.md (make it `package`, or list it with its reason):\n\(undocumented.joined(separator: "\n"))")
        #expect(notPublic.isEmpty, "listed in docs/architecture.md but not a public top-level type of Sources/PayPanel: \(notPublic)")
    }
}
