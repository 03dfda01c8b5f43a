import Foundation
@testable import PayPanel
import TestSupport
import Testing

/// The in-process queue of writers of one file (`WriteGate`): shared by every connection to the
/// file, never turning SQLite's "busy" into a deadlock, losing no write.
@Suite struct WriteGateTests {
    @Test func connectionsToOneFileShareAGateAndOtherFilesDoNot() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("a.sqlite")
        let first = try Database(path: path)
        // Another spelling of the same file: the gate follows the file, not the string.
        let second = try Database(path: directory.path + "/./a.sqlite")
        let other = try Database(path: directory.file("b.sqlite"))
        let gate = try #require(WriteGate.forFile(at: path))
        #expect(WriteGate.forFile(at: directory.path + "/./a.sqlite") === gate)
        #expect(WriteGate.forFile(at: directory.file("b.sqlite")) !== gate)
        #expect(WriteGate.forFile(at: ":memory:") == nil)
        withExtendedLifetime((first, second, other)) {}
    }

    @Test func aWriteOnAnotherConnectionInsideAWriteFailsAsBusyInsteadOfHanging() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("nested.sqlite")
        let outer = try Database(path: path)
        try outer.execute("CREATE TABLE t (n INTEGER)")
        let inner = try Database(path: path, options: Database.Options(busyTimeout: .milliseconds(200)))
        // Without the bound this thread would wait for itself forever.
        let failure = try outer.write { () throws -> DatabaseError? in
            try outer.execute("INSERT INTO t VALUES (1)")
            do {
                try inner.write { try inner.execute("INSERT INTO t VALUES (2)") }
                return nil
            } catch let error as DatabaseError {
                return error
            }
        }
        let error = try #require(failure)
        #expect(error.isBusy)
        #expect(try outer.queryAll("SELECT n FROM t") { $0.int64(0) } == [1])
    }

    @Test func aWriterWaitsForAnotherConnectionsCommitAndThenSeesIt() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("queue.sqlite")
        let setup = try Database(path: path)
        try setup.execute("CREATE TABLE t (n INTEGER, seen INTEGER)")
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = Thread {
            let database = try! Database(path: path)
            try! database.write {
                try database.execute("INSERT INTO t VALUES (1, 0)")
                holding.signal()
                release.wait()
            }
        }
        first.start()
        holding.wait()
        let done = DispatchSemaphore(value: 0)
        let second = Thread {
            let database = try! Database(path: path, options: Database.Options(busyTimeout: .seconds(600)))
            // Records how many rows it saw: the first writer's, committed before this began.
            try! database.write { try database.execute("INSERT INTO t SELECT 2, count(*) FROM t") }
            done.signal()
        }
        second.start()
        release.signal()
        done.wait()
        #expect(try setup.queryAll("SELECT n, seen FROM t ORDER BY n") { [$0.int64(0), $0.int64(1)] } == [[1, 0], [2, 1]])
    }
}
