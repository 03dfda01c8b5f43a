#if PostgreSQL
import Foundation
import TestSupport
import Testing

/// Every command pointed at a PostgreSQL server that is not there says so in one `Error:` line
/// that names the server and what to do, and exits 1: no crash (a failed connection used to be
/// finished twice, SIGSEGV), no hang, no file named after the URL. Needs no running server.
@Suite struct UnreachablePostgreSQLTests {
    static let commands: [[String]] = [
        ["serve", "--port", "0"], ["keys", "create"], ["payments", "list"], ["db", "migrate"], ["db", "status"],
    ]

    /// A unix-socket directory with no server in it.
    @Test(arguments: commands)
    func aSocketDirectoryWithNoServerIsOneErrorLine(command: [String]) throws {
        let directory = try TemporaryDirectory()
        let sockets = try TemporaryDirectory("pg-none")
        let url = "postgresql:///payments?host=\(sockets.path)&user=paypanel"
        let result = try CLIRunner.run(command + ["--db", url], in: directory, timeout: 30)
        try Self.expectOneErrorLine(result, naming: "\(sockets.path)/.s.PGSQL.5432")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "no file may be made for a URL")
    }

    /// 127.0.0.1 on a port nobody listens on: bound by this test and never listened on, so the
    /// connection is refused and no other process can take the port meanwhile. The password in
    /// the URL is never shown; $PAYPANEL_DB names the database as well as --db does.
    @Test(arguments: commands)
    func aClosedPortIsOneErrorLine(command: [String]) throws {
        let directory = try TemporaryDirectory()
        let closed = try HeldPort(listening: false)
        let url = "postgresql://paypanel:not-shown-anywhere@127.0.0.1:\(closed.port)/payments"
        let result = try CLIRunner.run(command, in: directory, environment: ["PAYPANEL_DB": url], timeout: 30)
        try Self.expectOneErrorLine(result, naming: "\"127.0.0.1\", port \(closed.port)")
        #expect(!result.stderr.contains("not-shown-anywhere") && !result.stdout.contains("not-shown-anywhere"), "\(result)")
    }

    static func expectOneErrorLine(_ result: CLIResult, naming server: String) throws {
        #expect(result.signal == nil, "\(result)")
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        try #require(result.stderrLines.count == 1, "\(result)")
        let line = result.stderrLines[0]
        #expect(line.hasPrefix("Error: cannot connect to PostgreSQL at postgresql://"), "\(line)")
        #expect(line.contains(server), "names the server libpq tried: \(line)")
        #expect(line.hasSuffix("start the server, or check the host, port, user and database in --db (or $PAYPANEL_DB)"), "\(line)")
    }
}

#endif
