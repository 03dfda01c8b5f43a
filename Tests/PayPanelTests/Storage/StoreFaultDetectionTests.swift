import Foundation
@testable import PayPanel
import TestSupport
import Testing

/// The storage layer's side of the store faults (docs/reliability.md, "Store faults"): a write
/// is acknowledged only once it is durable in the file a restart reads, and each fault is named
/// (`StoreFault`) for the front end's 503 and readiness.
@Suite struct StoreFaultDetectionTests {
    /// A migrated payments database (readiness checks the migrations) with a table of its own.
    static func table(_ path: String) throws -> Database {
        let database = try Database.openMigrated(path: path, set: .main, clock: SystemClock())
        try database.execute("CREATE TABLE IF NOT EXISTS t (n INTEGER)")
        return database
    }

    static func count(_ path: String) throws -> Int {
        try Database(path: path, options: Database.Options(readOnly: true, create: false)).queryFirst("SELECT count(*) FROM t") { $0.int(0) } ?? -1
    }

    /// Before: the flush took the missing WAL for "already checkpointed" and acknowledged
    /// commits that went into the unlinked file.
    @Test func aDeletedWALFailsTheWriteRefusesLaterOnesAndKeepsWhatWasAcknowledged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("wal.sqlite")
        var database: Database? = try Self.table(path)
        for n in 1...3 { try database!.write { try database!.execute("INSERT INTO t VALUES (?)", [n]) } }
        #expect(unlink(path + "-wal") == 0)

        let failure = #expect(throws: DatabaseError.self) { try database!.write { try database!.execute("INSERT INTO t VALUES (4)") } }
        #expect(failure?.storeFault == .fileMissing)
        #expect(failure?.message.contains("wal.sqlite-wal was deleted") == true, "\(failure?.message ?? "")")
        #expect(failure?.message.contains("copied into") == true, "the acknowledged commits were salvaged: \(failure?.message ?? "")")
        // Refused before anything is committed, every time.
        let refused = #expect(throws: DatabaseError.self) { try database!.write { try database!.execute("INSERT INTO t VALUES (5)") } }
        #expect(refused?.storeFault == .fileMissing)
        #expect(SQLiteStoreFactory(path: path, clock: SystemClock()).readiness()?.fault == .fileMissing)

        // What a restart reads: the three acknowledged rows at least (the failed one may be
        // there too, as after any failed answer), never the refused one.
        database = nil
        let rows = try Database(path: path).queryAll("SELECT n FROM t ORDER BY n") { $0.int(0) }
        #expect(Array(rows.prefix(3)) == [1, 2, 3])
        #expect(!rows.contains(5))
    }

    /// A readiness probe finds the loss between writes, and the next write is refused.
    @Test func readinessFindsADeletedWALBeforeAnyWrite() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("probe.sqlite")
        let database = try Self.table(path)
        try database.write { try database.execute("INSERT INTO t VALUES (1)") }
        let factory = SQLiteStoreFactory(path: path, clock: SystemClock())
        #expect(factory.readiness() == nil)
        #expect(unlink(path + "-wal") == 0)
        #expect(factory.readiness()?.fault == .fileMissing)
        #expect(factory.notReadyReason()?.contains("write-ahead log was deleted") == true)
        #expect(throws: DatabaseError.self) { try database.write { try database.execute("INSERT INTO t VALUES (2)") } }
    }

    /// A database file replaced under the connection (a restore copied over it by rename).
    @Test func aReplacedDatabaseFileFailsTheWrite() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("replaced.sqlite")
        let database = try Self.table(path)
        try database.write { try database.execute("INSERT INTO t VALUES (1)") }
        _ = try directory.write("other.sqlite", "")
        #expect(rename(directory.file("other.sqlite"), path) == 0)
        let failure = #expect(throws: DatabaseError.self) { try database.write { try database.execute("INSERT INTO t VALUES (2)") } }
        #expect(failure?.storeFault == .fileMissing)
        #expect(failure?.message.contains("replaced.sqlite was replaced by another file") == true, "\(failure?.message ?? "")")
    }

    /// SQLITE_FULL, injected with SQLite's own page limit (the same error a full disk gives):
    /// named `diskFull`, remembered for readiness, which checks for room again and clears it
    /// when there is (here the disk is not really full).
    @Test func aFullDiskIsNamedAndReadinessChecksForRoomAgain() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("full.sqlite")
        let database = try Self.table(path)
        try database.write { try database.execute("INSERT INTO t VALUES (1)") }
        let pages = try database.queryFirst("PRAGMA page_count") { $0.int(0) } ?? 0
        try database.execute("PRAGMA max_page_count = \(pages)")
        let failure = #expect(throws: DatabaseError.self) {
            try database.write { try database.execute("INSERT INTO t VALUES (zeroblob(65536))") }
        }
        #expect(failure?.storeFault == .diskFull)
        let gate = try #require(WriteGate.forFile(at: path))
        #expect(gate.hasSeenDiskFull)
        #expect(SQLiteStoreFactory.hasRoom(besides: path))
        #expect(SQLiteStoreFactory(path: path, clock: SystemClock()).readiness() == nil, "room again: ready")
        #expect(!gate.hasSeenDiskFull)
        #expect(try Self.count(path) == 1)
    }

    /// A write that squeezes into the last free blocks does not make the store ready: only the
    /// probe's room to spare does.
    @Test func aSuccessfulWriteAfterAFullDiskLeavesTheProbeToDecide() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("squeeze.sqlite")
        let database = try Self.table(path)
        let gate = try #require(WriteGate.forFile(at: path))
        gate.noteWrite(failure: DatabaseError(.full, sqliteMessage: "database or disk is full", sql: "COMMIT"))
        try database.write { try database.execute("INSERT INTO t VALUES (1)") }
        #expect(gate.hasSeenDiskFull)
    }

    /// Every SQLite failure that is a condition of the file gets a fault; others none.
    @Test func sqliteFailuresAreNamedForWhatTheyAre() {
        let cases: [(SQLiteResultCode, StoreFault?)] = [
            (.busy, .busy), (.locked, .busy), (.full, .diskFull), (.readOnly, .readOnly), (.readOnlyDatabaseMoved, .fileMissing),
            (.corrupt, .corrupt), (.notADatabase, .corrupt), (.ioErr, .ioError), (.ioErrFsync, .ioError),
            (.constraint, nil), (.constraintUnique, nil), (.error, nil),
        ]
        for (code, fault) in cases {
            #expect(DatabaseError(code, sqliteMessage: "m", sql: nil).storeFault == fault, "\(code)")
        }
    }
}
