import Foundation
import Glibc
import PayPanel
import Testing
import TestSupport

/// What `serve` refuses to start on (docs/reliability.md, "Store faults"): a payments file that
/// fails SQLite's integrity check, and a missing one beside a processor ledger that already
/// holds operations. Each is one `Error:` line naming the file, exit 1, the files untouched.
@Suite struct ServeStartChecksTests {
    static func serve(_ directory: TemporaryDirectory, database: String) throws -> CLIResult {
        // A server that wrongly starts is stopped by the timeout (and the test fails on it).
        try CLIRunner.run(
            ["serve", "--port", "0", "--db", database, "--processor-db", directory.file("processor.sqlite")],
            in: directory, timeout: 30)
    }

    /// Before: serve accepted payments into a malformed file.
    @Test func aMalformedDatabaseIsRefusedAtStart() async throws {
        let directory = try TemporaryDirectory("paypanel-server")
        let first = try await ServerProcess.start(directory: directory)
        for _ in 0..<20 { _ = try await first.createIntent() }
        #expect(await first.terminate() == 0)
        // Everything into the database file (the server leaves it in the WAL), then scribble
        // over one page of an index on the payments' tables (a torn write, a bad disk block): opening the
        // file, its schema and its migrations all read fine, so only an integrity check sees it.
        let path = first.databasePath
        let page: Int
        do {
            let database = try Database(path: path)
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            page = try database.queryFirst(
                "SELECT max(rootpage) FROM sqlite_schema WHERE type = 'index' AND tbl_name IN ('intents', 'attempts', 'events')") { $0.int(0) } ?? 0
        }
        try #require(page > 1, "no index page to damage")
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64(page - 1) * 4096)
        handle.write(Data(repeating: 0xA5, count: 4096))
        try handle.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let result = try Self.serve(directory, database: path)
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.isEmpty, "never listened: \(result.stdout)")
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: the payments database \(path) fails SQLite's integrity check"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the refused file is left as it was")
    }

    /// Before: serve made a new, empty database and the ledger's outcomes were never reconciled.
    @Test func aMissingDatabaseBesideALedgerWithOperationsIsRefused() async throws {
        let directory = try TemporaryDirectory("paypanel-server")
        let first = try await ServerProcess.start(directory: directory)
        let id = try await first.createIntent()
        let confirmed = try await first.request("POST", "/v1/payment_intents/\(id)/confirm", json: ServerProcess.card("4242424242424242"))
        #expect(confirmed.status == 200, "\(confirmed.text)")
        #expect(await first.terminate() == 0)

        let elsewhere = directory.file("elsewhere.sqlite")
        let result = try Self.serve(directory, database: elsewhere)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: the payments database \(elsewhere) does not exist, but the processor's ledger \(directory.file("processor.sqlite")) holds"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: elsewhere), "nothing created")
    }

    /// The demo's first start: no database and no ledger yet, so both are created.
    @Test func theFirstStartCreatesTheDatabase() async throws {
        let server = try await ServerProcess.start()
        #expect(FileManager.default.fileExists(atPath: server.databasePath))
        #expect(try await server.request("GET", "/readyz", key: "").status == 200)
        #expect(await server.terminate() == 0)
    }
}
