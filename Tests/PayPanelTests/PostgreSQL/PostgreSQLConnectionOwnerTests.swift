#if PostgreSQL
import Foundation
import TestSupport
import Testing

@testable import PayPanel
@testable import PayPanelPostgres

/// `PostgreSQLConnection` frees its `PGconn` exactly once on both ways opening can fail
/// (docs/architecture.md, "Who frees C handles"): before an object exists (no server: the
/// local handle is finished by `open`) and after (the session set-up fails: the object owns the
/// handle and its deinit finishes it). A second `PQfinish` frees libpq's memory twice, which
/// aborted the process before (`free(): invalid pointer`); the CLI's `UnreachablePostgreSQLTests`
/// prove the first case again in a child process.
@Suite struct PostgreSQLConnectionOwnerTests {
    /// No server at all: a socket directory with nothing in it. Needs no running server.
    @Test func aConnectionThatCannotReachTheServerFinishesItsHandleOnce() throws {
        let directory = try TemporaryDirectory()
        let conninfo = "postgresql:///postgres?host=\(directory.path)&user=postgres&connect_timeout=5"
        for _ in 0..<20 {
            let error = #expect(throws: PostgreSQLError.self) { _ = try PostgreSQLConnection.open(conninfo: conninfo, schema: "public") }
            #expect(error?.isConnectFailure == true, "\(String(describing: error))")
            // libpq's first line names the socket it tried.
            #expect(error?.detail?.contains(directory.path) == true, "\(String(describing: error))")
        }
    }

    /// The connection opens, then setting the session's schema fails (a NUL in the name is
    /// refused before it is sent): the object already owns the handle, and releasing it closes
    /// the session, once. The server shows no session left behind.
    @Test func aConnectionWhoseSessionSetUpFailsFinishesItsHandleOnce() throws {
        let url = try PostgreSQLTestServer.url()
        let name = PostgreSQLTestServer.freshSchemaName("owner")  // unique: only this test's sessions carry it
        var components = try #require(URLComponents(string: url))
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "application_name", value: name)]
        let tagged = try #require(components.string)
        for _ in 0..<20 {
            let error = #expect(throws: PostgreSQLError.self) { _ = try PostgreSQLConnection.open(conninfo: tagged, schema: "bad\u{0}schema") }
            #expect(error?.kind == .unsendableValue, "\(String(describing: error))")
        }
        // Closing a session is asynchronous on the server: wait (bounded) for the count to drop.
        let observer = try PostgreSQLConnection.open(conninfo: url, schema: "public")
        let count = PostgreSQLStatement("test.sessions", "SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE application_name = $1")
        let deadline = ContinuousClock.now + .seconds(10)
        var open = try observer.execute(count, [name]).rows.first?.int(0) ?? -1
        while open != 0, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            open = try observer.execute(count, [name]).rows.first?.int(0) ?? -1
        }
        #expect(open == 0, "\(open) sessions of the failed connections are still open: a handle was never finished")
    }
}
#endif
