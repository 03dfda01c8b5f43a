import Foundation
import PayPanel

/// The mock processor's SQLite ledger: what it holds, and every state change it makes, each in
/// one `BEGIN IMMEDIATE` transaction so several processes can share the file safely (the
/// idempotency check, the rule checks and the new row are one atomic step).
///
/// Like `Database` it has one owner and is not `Sendable`: `MockProcessor` (an actor) owns one,
/// and `paypanel processor ledger` opens one to read.
public final class ProcessorLedger {
    let database: Database

    /// The ledger file's migrations (`Migrations/processor/*.sql`).
    public static var migrations: MigrationSet { .processor }

    /// Where the CLI keeps the ledger unless told otherwise (`--processor-db`).
    public static let defaultPath = "paypanel-processor.sqlite"

    /// Opens (creating when missing) and migrates the ledger file at `path`.
    public convenience init(path: String, clock: any WallClock = SystemClock(), options: Database.Options = Database.Options()) throws {
        try self.init(migratedDatabase: Database.openMigrated(path: path, set: .processor, clock: clock, options: options))
    }

    /// Wraps an open database that holds (or is migrated to hold) the processor schema.
    public init(database: Database, clock: any WallClock = SystemClock()) throws {
        try Migrator(set: .processor, clock: clock).migrate(database)
        self.database = database
    }

    /// Wraps a database `Database.openMigrated(set: .processor)` already opened and migrated.
    init(migratedDatabase database: Database) {
        self.database = database
    }

    /// The file path (or `:memory:`).
    public var path: String { database.path }

    /// Every entry in ledger order, or those of one reference (an attempt id, which also brings
    /// its captures, voids and refunds, or a refund reference). Refunds pending past their
    /// settlement time read as approved, as they are at `now`.
    public func entries(reference: String? = nil, now: Date) throws -> [LedgerEntry] {
        let filter = reference == nil ? "" : " WHERE reference = ? OR refund_reference = ?"
        let values: [any DatabaseBindable] = [now] + (reference.map { [$0, $0] } ?? [])
        return try database.read {
            try database.queryAll(Self.selectEntries + filter + " ORDER BY id", values, Self.entry)
        }
    }

    // MARK: - Reading rows (inside the caller's transaction)

    /// The columns every entry query reads, with the pending-refund settlement applied at the
    /// first bound value (`now`), so readers never show a refund pending after it settled.
    static let selectEntries = """
        SELECT id, reference, operation, refund_reference, amount, currency,
               CASE WHEN status = 'pending' AND settles_at <= ?1 THEN 'approved' ELSE status END,
               decline_code, network, last4, trigger_name, expires_at, created_at,
               CASE WHEN status = 'pending' AND settles_at <= ?1 THEN settles_at ELSE updated_at END
        FROM operations
        """

    static func entry(_ row: Row) throws -> LedgerEntry {
        let sequence = row.int64(0)
        guard let operation = ProcessorOperation(rawValue: row.string(2)),
            let status = LedgerStatus(rawValue: row.string(6))
        else {
            throw LedgerCorruption(sequence: sequence, detail: "unknown operation or status")
        }
        let currency: Currency
        do {
            currency = try Currency(code: row.string(5))
        } catch {
            throw LedgerCorruption(sequence: sequence, detail: "unknown currency \(JSONWriter.quoted(row.string(5)))")
        }
        return LedgerEntry(
            sequence: sequence, reference: row.string(1), operation: operation, refundReference: row.optionalString(3),
            amount: Amount(minorUnits: row.int64(4), currency: currency), status: status,
            declineCode: row.optionalString(7).map(DeclineCode.init), network: row.optionalString(8),
            last4: row.optionalString(9), trigger: row.optionalString(10),
            expiresAt: row.optionalInt64(11).map(Timestamp.date(epochMilliseconds:)),
            createdAt: Timestamp.date(epochMilliseconds: row.int64(12)),
            updatedAt: Timestamp.date(epochMilliseconds: row.int64(13)))
    }

    /// The authorization of `reference`, if the processor has one.
    func authorization(_ reference: String, now: Date) throws -> LedgerEntry? {
        try database.queryFirst(
            Self.selectEntries + " WHERE reference = ?2 AND operation = 'authorize'", [now, reference], Self.entry)
    }

    /// The entries of one kind for `reference`, oldest first.
    func entries(_ operation: ProcessorOperation, of reference: String, now: Date) throws -> [LedgerEntry] {
        try database.queryAll(
            Self.selectEntries + " WHERE reference = ?2 AND operation = ?3 ORDER BY id", [now, reference, operation.rawValue],
            Self.entry)
    }

    /// The refund whose own reference is `refundReference`.
    func refund(_ refundReference: String, now: Date) throws -> LedgerEntry? {
        try database.queryFirst(Self.selectEntries + " WHERE refund_reference = ?2", [now, refundReference], Self.entry)
    }

    // MARK: - Writing rows

    /// A row to append.
    struct NewEntry {
        var reference: String
        var operation: ProcessorOperation
        var refundReference: String? = nil
        var amount: Amount
        var result: ProcessedResult
        var network: String?
        var last4: String?
        var trigger: String? = nil
        var expiresAt: Date? = nil
        var settlesAt: Date? = nil
    }

    /// Appends `entry` at `now` and returns it as stored.
    @discardableResult
    func append(_ entry: NewEntry, now: Date) throws -> LedgerEntry {
        let (status, declineCode) = Self.statusColumns(entry.result, pending: entry.settlesAt != nil)
        try database.execute(
            """
            INSERT INTO operations (reference, operation, refund_reference, amount, currency, status, decline_code,
                                    network, last4, trigger_name, expires_at, settles_at, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [entry.reference, entry.operation.rawValue, entry.refundReference, entry.amount.minorUnits,
             entry.amount.currency.code, status.rawValue, declineCode?.rawValue, entry.network, entry.last4,
             entry.trigger, entry.expiresAt, entry.settlesAt, now, now])
        let id = database.lastInsertRowID
        guard let stored = try database.queryFirst(Self.selectEntries + " WHERE id = ?2", [now, id], Self.entry) else {
            throw LedgerCorruption(sequence: id, detail: "the row just inserted cannot be read back")
        }
        return stored
    }

    /// Sets the result of an existing entry (a completed challenge).
    func update(sequence: Int64, to result: ProcessedResult, expiresAt: Date?, now: Date) throws {
        let (status, declineCode) = Self.statusColumns(result, pending: false)
        try database.execute(
            "UPDATE operations SET status = ?, decline_code = ?, expires_at = ?, updated_at = ? WHERE id = ?",
            [status.rawValue, declineCode?.rawValue, expiresAt, now, sequence])
    }

    private static func statusColumns(_ result: ProcessedResult, pending: Bool) -> (LedgerStatus, DeclineCode?) {
        switch result {
        case .approved: (pending ? .pending : .approved, nil)
        case .declined(let code): (.declined, code)
        case .challengeRequired: (.challengeRequired, nil)
        }
    }

    /// Records pending refunds whose time has come as approved, at the time they settled. Every
    /// write starts with it, so the stored rows agree with what readers are shown.
    func settleDueRefunds(now: Date) throws {
        try database.execute(
            """
            UPDATE operations SET status = 'approved', updated_at = settles_at, settles_at = NULL
            WHERE status = 'pending' AND settles_at <= ?
            """, [now])
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction after settling due refunds.
    func transaction<T>(now: Date, _ body: () throws -> T) throws -> T {
        try database.write {
            try settleDueRefunds(now: now)
            return try body()
        }
    }
}

/// A ledger row this program cannot read: the file was edited by hand or by something else.
public struct LedgerCorruption: PayPanelError, Equatable {
    /// The entry's ledger number.
    public let sequence: Int64
    /// What was wrong with it.
    public let detail: String
    public var code: String { "processor_ledger_corrupt" }
    public var message: String {
        "processor ledger entry \(sequence) cannot be read (\(detail)): the file was changed outside paypanel; use a new --processor-db file"
    }
}
