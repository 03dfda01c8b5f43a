#if PostgreSQL
import Foundation
import PayPanel
import PayPanelHTTP

/// The `PaymentStore` on PostgreSQL (libpq), for several `serve` processes on one database.
///
/// Each `write` is one transaction on a pooled connection, with SQLite's semantics:
/// `READ COMMITTED`, and every read of an intent inside a write is `SELECT … FOR NO KEY UPDATE`, so two
/// writers racing on one intent queue on its row and the second sees the first's effects (the
/// ledger's versioned `UPDATE … WHERE version = $n` and its row-count check remain the
/// backstop). Idempotency keys and token transaction ids, whose rows may not exist yet, are
/// serialized with a transaction-scoped advisory lock on the key. Timer and outbox claims use
/// `FOR UPDATE SKIP LOCKED`, so several servers share that work without doing any twice.
///
/// A serialization failure (40001) or deadlock (40P01) rolls back and runs the whole body
/// again, at most `maximumAttempts` times with a jittered pause. A connection lost during
/// COMMIT is an unknown outcome: the transaction id is read back on a new connection
/// (`pg_xact_status`); committed returns, aborted runs again, anything else (or a server that
/// takes no connection to ask) throws `commitOutcomeUnknown`, never a blind retry.
///
/// Statements are pipelined to save waiting, not to change what runs. BEGIN and the reading of
/// the transaction id are queued and leave with the transaction's first statement, in one
/// round trip, so the id is known before anything else is sent. Statements whose answer the
/// body does not use (inserts, deletes, advisory locks, and the versioned update of an intent
/// whose row this transaction holds at that version) are queued on the connection and leave in
/// libpq's pipeline mode with the next statement whose answer is needed, or with the COMMIT:
/// one sync, their answers read in order. The server runs exactly the statements it ran
/// before, in the same order, in the same transaction under the same isolation and row locks;
/// only the client stops waiting between them. An error in the pipeline makes the server skip
/// the rest of it (COMMIT included), and the first real error is thrown and rolls back as
/// before; a conflict (40001/40P01) still runs the body again. Answers that must be checked (the
/// versioned update's row count) never leave with the COMMIT: they are read and checked first,
/// and a miss throws the same `versionConflict` and rolls back. A COMMIT lost with its
/// connection, whatever left with it, is read back by the transaction id. The round trips are
/// counted (`roundTrips`); a payment's lifecycle takes 18 where it took 44 (docs/benchmarks.md).
///
/// One owner, like `SQLitePaymentStore`: not `Sendable`. A nested write is a programmer error.
public final class PostgreSQLPaymentStore: PaymentStore {
    /// How write transactions are isolated. `readCommitted` with row locks is the default;
    /// `serializable` is what CockroachDB always runs, and retries more.
    public enum Isolation: String, Sendable {
        case readCommitted = "READ COMMITTED"
        case serializable = "SERIALIZABLE"
    }

    let pool: PostgreSQLConnectionPool
    public let isolation: Isolation
    /// Runs of a write's body, at most (the first and the retries).
    public let maximumAttempts: Int
    private var current: PostgreSQLPaymentTransaction?
    /// Called when the store goes away (tests drop their schema here).
    package var onClose: (() -> Void)?
    /// For tests: breaks the connection of the next write's COMMIT (then clears itself).
    package var commitFault: CommitFault?
    /// Round trips to the server so far, by every store on this store's connection pool
    /// (`PostgreSQLRoundTrips`).
    package var roundTrips: Int { pool.roundTrips.total }
    /// For tests: queues `sql` in the current write, unseen by the transaction's record of the
    /// intents it holds: what a change of a held row (which the row lock rules out) would look
    /// like to the statements queued after it.
    package func queueBehindTheTransactionsBack(_ name: String, _ sql: String, _ values: [any DatabaseBindable]) throws {
        guard let current else { preconditionFailure("queueBehindTheTransactionsBack outside a write") }
        try current.connection.deferStatement(PostgreSQLStatement(name, sql), values)
    }
    /// For tests: how many times the last transaction's body ran.
    package private(set) var lastAttempts = 0

    /// Where a test breaks the connection of a COMMIT.
    package enum CommitFault: Sendable {
        /// Before COMMIT is sent: the server aborts the transaction.
        case beforeCommit
        /// After the server committed, before its answer is read: the answer is lost.
        case afterCommitBeforeAnswer
    }

    /// Opens a store on the database at `url` (`postgresql://user@host/db`, or libpq's
    /// `key=value` form) in `schema`, creating the schema and applying the embedded PostgreSQL
    /// migrations under an advisory lock when `migrate`, verifying them otherwise.
    public convenience init(
        url: String, schema: String = "public", migrate: Bool = true, clock: any WallClock = SystemClock(),
        isolation: Isolation = .readCommitted
    ) throws {
        let pool = PostgreSQLConnectionPool(conninfo: url, schema: try PostgreSQLMigrator.validSchema(schema))
        try self.init(pool: pool, migrate: migrate, clock: clock, isolation: isolation)
    }

    init(pool: PostgreSQLConnectionPool, migrate: Bool, clock: any WallClock, isolation: Isolation = .readCommitted) throws {
        self.pool = pool
        self.isolation = isolation
        self.maximumAttempts = 8
        let migrator = PostgreSQLMigrator(set: .postgreSQL, clock: clock)
        try pool.withConnection { connection in
            if migrate { try migrator.migrate(connection, schema: pool.schema) } else { try migrator.verify(connection) }
        }
    }

    deinit {
        onClose?()
    }

    /// A write inside another `write` or `read` of this store stops the process, as on SQLite
    /// (`Database.write` says why); a `read` inside a transaction joins it.
    public func write<T>(_ body: (any PaymentStoreTransaction) throws -> T) throws -> T {
        precondition(current == nil, Database.nestedWrite)
        return try transaction(writing: true, body)
    }

    public func read<T>(_ body: (any PaymentStoreTransaction) throws -> T) throws -> T {
        if let current { return try body(current) }
        return try transaction(writing: false, body)
    }

    /// One transaction on a raw connection with this store's isolation, conflict retries and
    /// COMMIT read-back: what the schema's other stores (webhooks, devices) run their several
    /// statements in. The body may run more than once, so it must only talk to the database.
    func withTransaction<T>(writing: Bool, _ body: (PostgreSQLConnection) throws -> T) throws -> T {
        if let current {
            precondition(!writing, Database.nestedWrite)
            return try body(current.connection)
        }
        return try transaction(writing: writing) { try body($0.connection) }
    }

    private func transaction<T>(writing: Bool, _ body: (PostgreSQLPaymentTransaction) throws -> T) throws -> T {
        // A write learns its transaction id with its BEGIN, so that a COMMIT lost with its
        // connection can be read back by it. Both are queued: they leave with the
        // transaction's first statement, in its round trip.
        let begin = writing
            ? "BEGIN ISOLATION LEVEL \(isolation.rawValue)"
            : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"  // one snapshot for the whole read
        var attempt = 0
        while true {
            attempt += 1
            lastAttempts = attempt
            let connection = try pool.borrow()
            defer { pool.giveBack(connection) }
            let transaction = PostgreSQLPaymentTransaction(connection: connection, writing: writing)
            do {
                try connection.deferBegin(begin, name: writing ? "begin" : "begin_read", readingTransactionID: writing)
                current = transaction
                defer { current = nil }
                let value = try body(transaction)
                switch try commit(connection, writing: writing) {
                case .committed: return value
                case .aborted: break  // read back as not committed: safe to run again
                }
            } catch let error as PostgreSQLError where error.isRetryableConflict && attempt < maximumAttempts {
                rollBack(connection)
            } catch let error as PostgreSQLError where !connection.beginAnswered && error.isConnectionLost && attempt < maximumAttempts {
                // An idle pooled connection the server dropped (a restart): the round trip
                // that carried the BEGIN never came back, so nothing of this transaction
                // happened on the server (COMMIT never leaves before the BEGIN is answered).
                connection.discardDeferred()
            } catch {
                rollBack(connection)
                throw error
            }
            guard attempt < maximumAttempts else {
                throw PostgreSQLError(kind: .server, sqlState: "40001", statement: "commit", detail: "the transaction kept losing races")
            }
            Self.pause(beforeAttempt: attempt + 1)
        }
    }

    private enum CommitOutcome { case committed, aborted }

    /// COMMIT, and when the connection breaks under it, the outcome read back by transaction id
    /// (a write's, read with its BEGIN; a read has nothing to lose).
    ///
    /// COMMIT leaves in the same pipeline as the statements still queued, unless one of them
    /// has an answer to check (a failed check must still be able to roll back) or the
    /// transaction id has not been read yet (a lost COMMIT must be readable by it): then the
    /// queue goes first, in a round trip of its own, and COMMIT alone after it.
    private func commit(_ connection: PostgreSQLConnection, writing: Bool) throws -> CommitOutcome {
        guard writing else {
            try connection.finishDeferred(with: "COMMIT", name: "commit_read")
            return .committed
        }
        let fault = commitFault
        commitFault = nil
        if connection.transactionID == nil || connection.deferredNeedChecking || fault == .afterCommitBeforeAnswer {
            // Not under the read-back below: COMMIT has not left, so a failure here is the
            // body's, rolled back (or retried) like any other.
            try connection.flushDeferred()
        }
        guard let xid = connection.transactionID else {
            throw PostgreSQLError(kind: .server, statement: "begin", detail: "the server did not say the transaction id")
        }
        do {
            switch fault {
            case nil:
                try connection.finishDeferred(with: "COMMIT", name: "commit")
            case .beforeCommit:
                connection.breakSocket()
                try connection.finishDeferred(with: "COMMIT", name: "commit")
            case .afterCommitBeforeAnswer:
                try connection.send("COMMIT", name: "commit")
                try waitUntilCommitted(xid)
                connection.breakSocket()
                try connection.finishSent(name: "commit")
            }
            return .committed
        } catch let error as PostgreSQLError where error.isConnectionLost {
            return try readBackOutcome(of: xid)
        }
    }

    /// Asks a new connection what became of transaction `xid`, waiting a little while the
    /// server has not yet noticed the old connection is gone. A server that takes no new
    /// connection (stopped, or shutting down) cannot say until it is back, so the outcome is
    /// unknown at once: waiting here would hold up every payment queued behind this one for the
    /// whole outage, and the client's retry with its Idempotency-Key reads the outcome back.
    private func readBackOutcome(of xid: String) throws -> CommitOutcome {
        for round in 0..<20 {
            let status: String?
            do {
                status = try pool.withConnection { connection in
                    try connection.execute(Self.transactionStatus, [xid]).rows.first?.optionalString(0)
                }
            } catch let error as PostgreSQLError where error.isConnectFailure {
                throw PostgreSQLError(kind: .commitOutcomeUnknown, statement: "commit")
            } catch {
                status = nil
            }
            switch status {
            case "committed": return .committed
            case "aborted": return .aborted
            default:
                BlockingWait.announce("PostgreSQL commit read-back pause")
                Thread.sleep(forTimeInterval: 0.05 * Double(round + 1))
            }
        }
        throw PostgreSQLError(kind: .commitOutcomeUnknown, statement: "commit")
    }

    /// For `afterCommitBeforeAnswer`: waits until another connection sees `xid` committed.
    private func waitUntilCommitted(_ xid: String) throws {
        for _ in 0..<400 {
            let status = try pool.withConnection { try $0.execute(Self.transactionStatus, [xid]).rows.first?.optionalString(0) }
            if status == "committed" { return }
            BlockingWait.announce("PostgreSQL commit wait")
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    private func rollBack(_ connection: PostgreSQLConnection) {
        // What is still queued was never sent: there is nothing of it to undo. Nor is there a
        // transaction to end before the server answered its BEGIN (a broken connection, whose
        // transaction the server ends itself).
        connection.discardDeferred()
        guard connection.beginAnswered else { return }
        // A broken connection is dropped by the pool anyway.
        _ = try? connection.executeScript("ROLLBACK", name: "rollback")
    }

    /// 2, 4, 8… ms (at most 64), times a random factor between 0.5 and 1.5, so racing servers
    /// do not collide again in step.
    static func pause(beforeAttempt attempt: Int) {
        let base = Double(min(64, 1 << min(attempt, 6))) / 1000
        BlockingWait.announce("PostgreSQL retry back-off")
        Thread.sleep(forTimeInterval: base * Double.random(in: 0.5...1.5))
    }

    static let transactionStatus = PostgreSQLStatement("tx.status", "SELECT pg_catalog.pg_xact_status($1::xid8)")
}

#endif
