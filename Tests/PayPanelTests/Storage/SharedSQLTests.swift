import Foundation
@testable import PayPanel
import Testing
import TestSupport

/// The SQL both stores run is written once (`SharedSQL`): a statement the SQLite and the
/// PostgreSQL store each wrote out was changed in one and not the other more than once.
@Suite struct SharedSQLTests {
    @Test func questionMarksBecomeNumberedParametersAndNumberedOnesKeepTheirNumber() {
        #expect(SharedStatement.numbered("UPDATE t SET a = ? WHERE id = ? AND v = ?") == "UPDATE t SET a = $1 WHERE id = $2 AND v = $3")
        // SQLite's `?1` used twice stays one parameter.
        #expect(SharedStatement.numbered("WHERE a <= ?1 AND (b IS NULL OR b <= ?1) LIMIT ?2") == "WHERE a <= $1 AND (b IS NULL OR b <= $1) LIMIT $2")
        #expect(SharedStatement.numbered("WHERE c = '?' AND d = ?") == "WHERE c = '?' AND d = $1", "a ? in a literal is text")
        #expect(SharedSQL.duePushDeliveryIDs.postgreSQL.contains("next_attempt_at <= $1\nAND (claimed_until IS NULL OR claimed_until <= $1) ORDER BY next_attempt_at, id LIMIT $2"))
    }

    /// Every SQL statement written as a string literal in the SQLite store's sources and in the
    /// PostgreSQL store's, with parameters (`?`, `?1`, `$1`), spacing and the type that holds an
    /// interpolated column list set aside. Before the fold, 21 statements stood in both.
    @Test func noStatementIsWrittenOutInBothStores() throws {
        let sqlite = try Self.statements(under: "Sources/PayPanel/Storage", skipping: "SharedSQL.swift")
        let postgreSQL = try Self.statements(under: "Sources/PayPanelPostgres")
        #expect(sqlite.count > 20 && postgreSQL.count > 40, "the reading found the statements (\(sqlite.count), \(postgreSQL.count))")
        // `SELECT 1`: a connection check, not a statement of the schema.
        let twins = Set(sqlite.keys).intersection(postgreSQL.keys).subtracting(["SELECT 1"]).sorted()
        let listed = twins.map { "\($0)\n    \(sqlite[$0]!.joined(separator: ", ")) and \(postgreSQL[$0]!.joined(separator: ", "))" }
        #expect(twins.isEmpty, "statements written in both stores (move each into SharedSQL):\n\(listed.joined(separator: "\n"))")
    }

    /// The statements in the Swift files under `folder`, normalised, with the places they stand.
    static func statements(under folder: String, skipping skipped: String? = nil) throws -> [String: [String]] {
        let root = RepositoryPaths.root.appending(path: folder)
        let files = try #require(FileManager.default.enumerator(atPath: root.path(percentEncoded: false)))
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") && $0 != skipped && !$0.hasSuffix("/" + (skipped ?? "-")) }
        var found: [String: [String]] = [:]
        let literal = /"""\n(?<block>(?s:.*?))\n\s*"""|"(?<line>(?:[^"\\\n]|\\.)*)"/
        for file in files {
            let text = try String(contentsOf: root.appending(path: file), encoding: .utf8)
            for match in text.matches(of: literal) {
                let body = String(match.output.block ?? match.output.line ?? "")
                guard body.contains(/^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/) else { continue }
                let line = text[..<match.range.lowerBound].count { $0 == "\n" } + 1
                found[normalised(body), default: []].append("\(folder)/\(file):\(line)")
            }
        }
        return found
    }

    static func normalised(_ sql: String) -> String {
        sql.replacing(/[$?]\d+/, with: "?")
            .replacing(/\\\((?:\w+\.)*(\w+)\)/) { "\\(\($0.output.1))" }
            .replacing(/\\\n/, with: " ")
            .replacing(/\s+/, with: " ")
            .trimmingCharacters(in: .whitespaces)
    }
}
