import Foundation
import PayPanel
import TestSupport
import Testing

/// `--db` (or $PAYPANEL_DB) chooses the store: a plain path or `sqlite:PATH` is a SQLite file;
/// `postgresql://…` is PostgreSQL, which a build without the `PostgreSQL` trait refuses with
/// the command that builds one.
@Suite struct DatabaseSelectionTests {
    static let environment = ["PAYPANEL_NOW": "2026-11-29T12:00:00Z"]

    @Test func aSQLitePrefixNamesAFile() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["payments", "list", "--db", "sqlite:chosen.sqlite"], in: directory, environment: Self.environment)
        #expect(result.status == 0, "\(result)")
        #expect(FileManager.default.fileExists(atPath: directory.file("chosen.sqlite")))
    }

    @Test func anEmptySQLitePathIsAUsageError() throws {
        let directory = try TemporaryDirectory()
        let result = try CLIRunner.run(["payments", "list", "--db", "sqlite:"], in: directory, environment: Self.environment)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("needs a path after 'sqlite:'"))
    }

    #if !PostgreSQL
    @Test(arguments: [["--db", "postgresql://127.0.0.1/paypanel"], []])
    func aBuildWithoutTheTraitSaysHowToBuildOne(options: [String]) throws {
        let directory = try TemporaryDirectory()
        var environment = Self.environment
        if options.isEmpty { environment["PAYPANEL_DB"] = "postgres://127.0.0.1/paypanel" }
        let result = try CLIRunner.run(["payments", "list"] + options, in: directory, environment: environment)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.hasPrefix("Error: this paypanel was built without PostgreSQL support"))
        #expect(result.stderr.contains("swift build --traits PostgreSQL"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "no SQLite file named after the URL")
    }
    #endif
}
