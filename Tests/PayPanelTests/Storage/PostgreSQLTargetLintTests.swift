import Foundation
import Testing
import TestSupport

/// The PostgreSQL store is its own target, `PayPanelPostgres`: the `PayPanel` library holds no
/// PostgreSQL code and links no libpq, so `swift build --product PayPanel` compiles none of it
/// whatever the traits. PostgreSQL code put back into `Sources/PayPanel` fails here.
@Suite struct PostgreSQLTargetLintTests {
    @Test func noSourceOfPayPanelIsConditionalOnPostgreSQLOrImportsLibpq() throws {
        let lines = try SourceCommentTests.lines(under: "Sources/PayPanel")
        let condition = /^\s*#(if|elseif)\b.*\bPostgreSQL\b/
        let libpq = /\bimport\s+CLibPQ\b/
        let found = lines.filter { $0.line.contains(condition) || $0.line.contains(libpq) }
            .map { "Sources/PayPanel/\($0.file):\($0.number): \($0.line.trimmingCharacters(in: .whitespaces))" }
        #expect(Set(lines.map(\.file)).count > 150, "the walk found the library's sources")
        #expect(found.isEmpty, "PostgreSQL code belongs in Sources/PayPanelPostgres:\n\(found.joined(separator: "\n"))")
    }

    @Test func thePayPanelTargetDoesNotDependOnLibpq() throws {
        let manifest = try String(contentsOf: RepositoryPaths.root.appending(path: "Package.swift"), encoding: .utf8)
        /// The declaration of the target named `name` without its comments: from `.target(` to
        /// the next entry of the targets list (the lines indented as deep as `.target(`).
        func target(_ name: String) throws -> String {
            let start = try #require(
                manifest.firstRange(of: try Regex(#"\n        \.target\(\s*name: ""# + name + #"","#)), "Package.swift has a target \(name)")
            let end = manifest[start.upperBound...].firstRange(of: /\n        [^ ]/)?.lowerBound ?? manifest.endIndex
            return manifest[start.lowerBound..<end].split(separator: "\n")
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
        }
        #expect(try target("PayPanelPostgres").contains("CLibPQ"), "the reading finds a target's dependencies")
        #expect(try !target("PayPanel").contains("CLibPQ"), "the PayPanel target lists CLibPQ: PayPanelPostgres alone depends on libpq")
    }
}
