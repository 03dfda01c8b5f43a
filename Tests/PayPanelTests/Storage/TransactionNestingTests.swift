import Foundation
import Glibc
import PayPanel
import TestSupport
import Testing

/// One transaction at a time on a connection: a write started inside another transaction is a
/// programmer error that stops the process (never silently joined), a read inside a write joins
/// it, and a transaction that failed at COMMIT leaves the connection cleanly outside one.
@Suite struct TransactionNestingTests {
    @Test func aWriteInsideAWriteStopsTheProcess() async {
        await #expect(processExitsWith: .signal(SIGILL)) {
            let directory = try TemporaryDirectory("paypanel-nesting")
            let database = try Database(path: directory.file("n.sqlite"))
            try database.execute("CREATE TABLE t (n INTEGER)")
            try database.write {
                try database.write { try database.execute("INSERT INTO t VALUES (1)") }
            }
        }
    }

    @Test func aWriteInsideAReadStopsTheProcess() async {
        await #expect(processExitsWith: .signal(SIGILL)) {
            let directory = try TemporaryDirectory("paypanel-nesting")
            let database = try Database(path: directory.file("n.sqlite"))
            try database.execute("CREATE TABLE t (n INTEGER)")
            try database.read {
                try database.write { try database.execute("INSERT INTO t VALUES (1)") }
            }
        }
    }

    @Test func aPaymentStoreWriteInsideAWriteStopsTheProcess() async {
        await #expect(processExitsWith: .signal(SIGILL)) {
            let directory = try TemporaryDirectory("paypanel-nesting")
            let store = try SQLitePaymentStore(path: directory.file("p.sqlite"), clock: ManualClock(Date(timeIntervalSince1970: 0)))
            try store.write { _ in try store.write { _ in } }
        }
    }

    @Test func aReadInsideAWriteSeesTheWrite() throws {
        let directory = try TemporaryDirectory("paypanel-nesting")
        let database = try Database(path: directory.file("n.sqlite"))
        try database.execute("CREATE TABLE t (n INTEGER)")
        let seen = try database.write { () throws -> [Int64] in
            try database.execute("INSERT INTO t VALUES (7)")
            return try database.read { try database.queryAll("SELECT n FROM t") { $0.int64(0) } }
        }
        #expect(seen == [7])
    }

    /// A deferred foreign key fails the COMMIT itself. The connection is then outside any
    /// transaction, and the next write is a transaction of its own (its depth was once left at
    /// -1, so the next write's body ran as if outside a transaction).
    @Test func aFailedCommitLeavesTheConnectionOutsideATransaction() throws {
        let directory = try TemporaryDirectory("paypanel-nesting")
        let database = try Database(path: directory.file("n.sqlite"))
        try database.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
        try database.execute("CREATE TABLE child (parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)")
        #expect(throws: DatabaseError.self) {
            try database.write { try database.execute("INSERT INTO child VALUES (1)") }
        }
        #expect(!database.isInTransaction)
        let inside = try database.write { () throws -> Bool in
            try database.execute("INSERT INTO parent VALUES (1)")
            return database.isInTransaction
        }
        #expect(inside)
        #expect(try database.queryAll("SELECT count(*) FROM child") { $0.int64(0) } == [0])
        #expect(try database.queryAll("SELECT count(*) FROM parent") { $0.int64(0) } == [1])
    }
}
