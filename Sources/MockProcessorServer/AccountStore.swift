import Foundation
import MockProcessor
import PayPanel
import Synchronization

/// Where `processor serve` keeps its accounts between runs: in the ledger file itself
/// (migration `Migrations/processor/0004_accounts.sql`), one row per object (`account_objects`:
/// intents, refunds, charges, customers, payment methods, idempotency keys with their answers,
/// card chains) and one per account (`accounts`: the test clock).
///
/// Why the ledger file: one store. The money (the ledger's operations) and the Stripe-side view
/// of it are one file, one schema and one migration history, copied, backed up and moved away
/// together, so no start can pair a ledger with another run's accounts. (Earlier versions kept
/// the accounts in a second file, `<ledger>.accounts.sqlite`, and before that in JSON
/// snapshots; both are moved in at start: `LegacyAccountFiles`.)
///
/// Why the ledger's own connection, on the ledger's thread: `ProcessorService` runs on the
/// `MockProcessor`'s thread (its executor is the mock's), and this store writes through the
/// mock's connection (`MockProcessor.ledgerConnection`, reached with `assumeIsolated`, which
/// stops the process if it is ever called from another thread). With a connection of its own,
/// on a thread of its own, each side's commits made the other throw its page cache away: about
/// 50 `pread` per flow in `bench processor` (docs/benchmarks.md). Writes are synchronous on that
/// one thread, so the order of an account's writes is the order of its requests, and the order
/// between them and the ledger's is write-ahead: an intent or refund is written
/// `processing`/`pending` here before its ledger call, and a start settles such rows from the
/// ledger.
///
/// Why rows: each request writes, in one transaction, the objects it changed and nothing else
/// (`Account.pendingChanges`), so its cost does not grow with the account. (Earlier versions
/// rewrote the account's whole JSON snapshot on every request: in a release build 1.4 ms
/// per authorization in an account of 10 intents, 244 ms in one of 10,000; docs/benchmarks.md.)
/// The service writes before it answers, so an answer a client saw is in a committed
/// transaction; SQLite's WAL keeps it through a SIGKILL at any moment, and no temporary file is
/// ever made.
///
/// It has one owner and is not `Sendable`: the `ProcessorService` actor.
final class AccountStore {
    private let processor: MockProcessor
    private let writes: AccountStoreWrites?

    /// The file's path (for messages): the ledger's.
    var path: String { processor.ledgerPath }

    /// The account tables of `processor`'s ledger (its migrations made them). Nil for an
    /// in-memory ledger: its accounts die with the process, as its ledger does. `writes`, when
    /// given, counts every row written (tests check that a request's write does not grow with
    /// the account). Called only on `processor`'s thread, by an owner whose executor is the
    /// processor's.
    static func open(in processor: MockProcessor, writes: AccountStoreWrites? = nil) -> AccountStore? {
        guard processor.ledgerPath != ":memory:", !processor.ledgerPath.isEmpty else { return nil }
        return AccountStore(processor: processor, writes: writes)
    }

    private init(processor: MockProcessor, writes: AccountStoreWrites?) {
        self.processor = processor
        self.writes = writes
    }

    /// Runs `body` with the ledger's connection, on the ledger's thread (the caller's, checked
    /// by `assumeIsolated`: the process stops on any other).
    private func withConnection<T>(_ body: (Database) throws -> T) rethrows -> T {
        let lease = processor.assumeIsolated { processor in ConnectionOnItsThread(database: processor.ledgerConnection) }
        return try body(lease.database)
    }
}

/// The ledger's connection, handed out on the processor's thread and used there within the
/// same synchronous call (`AccountStore.withConnection`): never kept, never sent elsewhere.
private struct ConnectionOnItsThread: @unchecked Sendable {
    let database: Database
}

extension AccountStore {
    // MARK: - Reading

    /// Every stored account, objects in creation order. An object whose row cannot be read is
    /// left out and named in `unreadable` (the rest of its account is kept).
    func loadAll() throws -> (accounts: [Account], unreadable: [String]) {
        var accounts: [String: Account] = [:]
        var unreadable: [String] = []
        try withConnection { database in try database.read {
            try database.query("SELECT tag, clock_offset FROM accounts ORDER BY tag") { row in
                var account = Account(tag: row.string(0))
                account.clockOffset = row.double(1)
                accounts[account.tag] = account
            }
            try database.query("SELECT account, kind, id, position, body FROM account_objects ORDER BY account, kind, position, id") { row in
                let tag = row.string(0)
                guard accounts[tag] != nil else { return }
                if !Self.load(row, into: &accounts[tag]!) { unreadable.append("\(tag) \(row.string(1)) \(row.string(2))") }
            }
        } }
        // Read from disk: nothing to write back (setting the clock above marked it changed).
        for tag in accounts.keys { accounts[tag]?.markSaved() }
        return (accounts.values.sorted { $0.tag < $1.tag }, unreadable)
    }

    /// The stored account `tag` (an evicted one whose key came back), or nil when the store
    /// has none. Rows that cannot be read are left out, as at start.
    func load(_ tag: String) throws -> Account? {
        var account: Account?
        try withConnection { database in try database.read {
            account = try database.queryFirst("SELECT clock_offset FROM accounts WHERE tag = ?", [tag]) { row in
                var found = Account(tag: tag)
                found.clockOffset = row.double(0)
                return found
            }
            guard account != nil else { return }
            try database.query("SELECT account, kind, id, position, body FROM account_objects WHERE account = ? ORDER BY kind, position, id", [tag]) { row in
                _ = Self.load(row, into: &account!)
            }
        } }
        account?.markSaved()
        return account
    }

    /// Adds one `account_objects` row (account, kind, id, position, body) to `account`; false
    /// when it cannot be read.
    private static func load(_ row: Row, into account: inout Account) -> Bool {
        let (kind, id, position) = (row.string(1), row.string(2), row.int64(3))
        guard let body = try? JSONParser().parse(row.string(4)) else { return false }
        switch kind {
        case ObjectKind.intent:
            guard let intent = (try? body.decoded(as: PersistedAccount.Intent.self))?.stored, intent.id == id else { return false }
            account.intents.load(intent, id: id, position: position)
        case ObjectKind.refund:
            guard let refund = (try? body.decoded(as: PersistedAccount.Refund.self))?.stored, refund.id == id else { return false }
            account.refunds.load(refund, id: id, position: position)
        case ObjectKind.charge:
            guard let charge = (try? body.decoded(as: PersistedObjects.Charge.self))?.stored, charge.id == id else { return false }
            account.charges.load(charge, id: id, position: position)
        case ObjectKind.customer:
            guard let customer = (try? body.decoded(as: PersistedObjects.Customer.self))?.stored, customer.id == id else { return false }
            account.customers.load(customer, id: id, position: position)
        case ObjectKind.paymentMethod:
            guard let method = (try? body.decoded(as: PersistedObjects.PaymentMethod.self))?.stored, method.id == id else { return false }
            account.paymentMethods.load(method, id: id, position: position)
        case ObjectKind.idempotencyKey:
            guard let key = try? body.decoded(as: PersistedAccount.Key.self) else { return false }
            account.idempotency.load(key.record, key: id)
        case ObjectKind.cardChain:
            guard let chain = try? body.decoded(as: PersistedAccount.Chain.self), !chain.steps.isEmpty else { return false }
            account.cardChains.load(chain.chain, key: id)
        default:
            return false
        }
        return true
    }

    /// Whether the store holds the account `tag` (an earlier version's copy already imported).
    func contains(_ tag: String) throws -> Bool {
        try withConnection { database in try database.queryFirst("SELECT 1 FROM accounts WHERE tag = ?", [tag]) { _ in true } ?? false }
    }

    // MARK: - Writing

    /// Writes `changes` in one transaction: the account's row when it carries it, then one
    /// upsert or delete per changed object. Returns once committed, with the flush still to
    /// await (`PendingFlush`).
    func save(_ changes: AccountChanges) throws -> PendingFlush {
        let flush = try withConnection { database in try database.collectingFlushes { try Self.write(changes, database) }.1 }
        writes?.record(changes)
        return flush
    }

    /// The flush that makes every commit to the ledger file so far durable (the account
    /// store's and the ledger's: one file, one WAL).
    var flushOfEverythingCommitted: PendingFlush { withConnection { $0.flushOfEverythingCommitted } }

    private static func write(_ changes: AccountChanges, _ database: Database) throws {
        try database.write {
            if let clockOffset = changes.clockOffset {
                try database.execute(
                    "INSERT INTO accounts (tag, clock_offset) VALUES (?, ?) ON CONFLICT (tag) DO UPDATE SET clock_offset = excluded.clock_offset",
                    [changes.tag, clockOffset])
            }
            for row in changes.rows {
                if let body = row.body {
                    try database.execute(
                        """
                        INSERT INTO account_objects (account, kind, id, position, body) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (account, kind, id) DO UPDATE SET position = excluded.position, body = excluded.body
                        """,
                        [changes.tag, row.kind, row.id, row.position, body])
                } else {
                    try database.execute("DELETE FROM account_objects WHERE account = ? AND kind = ? AND id = ?", [changes.tag, row.kind, row.id])
                }
            }
        }
    }

    /// Forgets one account (`POST /_mock/reset`); its objects go with it (ON DELETE CASCADE).
    func remove(_ tag: String) throws {
        try withConnection { database in try database.write { try database.execute("DELETE FROM accounts WHERE tag = ?", [tag]) } }
    }

    /// Forgets every account (`POST /_mock/reset` with `scope=all`).
    func removeAll() throws {
        try withConnection { database in
            try database.write {
                try database.execute("DELETE FROM account_objects")
                try database.execute("DELETE FROM accounts")
            }
        }
    }
}

/// The `kind` column's values.
enum ObjectKind {
    static let intent = "intent"
    static let refund = "refund"
    static let idempotencyKey = "idempotency_key"
    static let cardChain = "card_chain"
    static let charge = "charge"
    static let customer = "customer"
    static let paymentMethod = "payment_method"
}

/// What one write of an account holds: its clock and the rows of the objects that changed.
struct AccountChanges {
    struct Row {
        let kind: String
        let id: String
        /// Creation order for intents and refunds; 0 for keys and chains.
        let position: Int64
        /// The object's JSON; nil to delete the row.
        let body: String?
    }

    let tag: String
    /// The account's row (its clock) to write; nil when the store holds it as it is.
    let clockOffset: Double?
    var rows: [Row] = []

    /// Bytes of object JSON written (deletions count 0).
    var bodyBytes: Int { rows.reduce(0) { $0 + ($1.body?.utf8.count ?? 0) } }
}

extension Account {
    /// The rows of everything changed since the last write, each object encoded alone: the
    /// cost is that of the changes, whatever the account holds.
    func pendingChanges() -> AccountChanges {
        // `JSONWriter`, not `JSONEncoder`: this runs on the processor's one thread for every
        // request, where the objects' JSON is about a tenth of the thread's time per flow even
        // so, and `JSONEncoder` took half as long again per row (docs/benchmarks.md).
        func json(_ value: some Encodable) -> String? { try? JSONWriter.string(encoding: value) }
        var changes = AccountChanges(tag: tag, clockOffset: rowNeedsWriting ? clockOffset : nil)
        for id in intents.changed.sorted() {
            let body = intents[id].flatMap { json(PersistedAccount.Intent($0)) }
            changes.rows.append(.init(kind: ObjectKind.intent, id: id, position: intents.position(of: id) ?? 0, body: body))
        }
        for id in refunds.changed.sorted() {
            let body = refunds[id].flatMap { json(PersistedAccount.Refund($0)) }
            changes.rows.append(.init(kind: ObjectKind.refund, id: id, position: refunds.position(of: id) ?? 0, body: body))
        }
        for id in charges.changed.sorted() {
            let body = charges[id].flatMap { json(PersistedObjects.Charge($0)) }
            changes.rows.append(.init(kind: ObjectKind.charge, id: id, position: charges.position(of: id) ?? 0, body: body))
        }
        for id in customers.changed.sorted() {
            let body = customers[id].flatMap { json(PersistedObjects.Customer($0)) }
            changes.rows.append(.init(kind: ObjectKind.customer, id: id, position: customers.position(of: id) ?? 0, body: body))
        }
        for id in paymentMethods.changed.sorted() {
            let body = paymentMethods[id].flatMap { json(PersistedObjects.PaymentMethod($0)) }
            changes.rows.append(.init(kind: ObjectKind.paymentMethod, id: id, position: paymentMethods.position(of: id) ?? 0, body: body))
        }
        for key in idempotency.changed.sorted() {
            // A key whose answer is not known yet is not written (nor kept after a crash).
            let body = idempotency[key].flatMap { PersistedAccount.Key(key: key, $0) }.flatMap { json($0) }
            changes.rows.append(.init(kind: ObjectKind.idempotencyKey, id: key, position: 0, body: body))
        }
        for card in cardChains.changed.sorted() {
            let body = cardChains[card].flatMap { json(PersistedAccount.Chain(card: card, $0)) }
            changes.rows.append(.init(kind: ObjectKind.cardChain, id: card, position: 0, body: body))
        }
        return changes
    }
}

/// Counts what the account store writes, for tests and benchmarks: a request's write must not
/// grow with the account. Injected through `ProcessorServer.Options.accountStoreWrites`.
public final class AccountStoreWrites: Sendable {
    public struct Totals: Sendable, Equatable {
        /// Transactions (one per write of an account).
        public var transactions = 0
        /// Object rows upserted or deleted (the account's own row not counted).
        public var rows = 0
        /// Bytes of object JSON upserted.
        public var bytes = 0
        /// Writes of the account's own row (its clock).
        public var accountRows = 0

        public init(transactions: Int = 0, rows: Int = 0, bytes: Int = 0, accountRows: Int = 0) {
            self.transactions = transactions
            self.rows = rows
            self.bytes = bytes
            self.accountRows = accountRows
        }
    }

    private let state = Mutex(Totals())

    public init() {}

    /// Everything written so far.
    public var totals: Totals { state.withLock { $0 } }

    func record(_ changes: AccountChanges) {
        state.withLock { totals in
            totals.transactions += 1
            totals.rows += changes.rows.count
            totals.bytes += changes.bodyBytes
            if changes.clockOffset != nil { totals.accountRows += 1 }
        }
    }
}

/// The ledger's account tables cannot be opened: the file is not a ledger, or was written by a
/// newer version.
public struct AccountStoreError: PayPanelError {
    public let path: String
    public let reason: String
    public var code: String { "processor_account_store_unusable" }
    public var message: String {
        "the processor's accounts in the ledger \(path) cannot be used (\(reason)): start with another --processor-db, or move this one away to start empty"
    }
}
