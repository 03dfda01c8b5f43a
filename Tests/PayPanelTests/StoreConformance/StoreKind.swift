import Foundation
import PayPanel
import TestSupport
import Testing
#if PostgreSQL
import PayPanelPostgres
#endif

/// The store conformance suite: the tests in this folder are written only against
/// `any PaymentStore` (with `PaymentLedger`, `IdempotencyStore` and `HistoryReplay` on top of
/// it), and run once per `StoreKind`. Every adopter of `PaymentStore` must pass them unchanged.
///
/// How a new store adopts the suite (the PostgreSQL store, say):
/// 1. Add a case to `StoreKind`, under the compilation condition that builds the store
///    (`#if PostgreSQL`, see the sketch below), so `StoreKind.allCases` (every test) and, when
///    two instances of the store see one database, `StoreKind.shared` (the concurrency tests)
///    include it.
/// 2. In `makeStore()`, open a fresh, empty, migrated database for the case, and return a
///    `StoreUnderTest` whose `openAnother` opens a second, independent instance of the store on
///    that same database (another connection) — or nil when the kind cannot share one.
///    A server store reads where its server is from an environment variable and cancels the
///    test with a message (`Test.cancel`) when it is not set, so `swift test` passes on a
///    machine without the server.
/// 3. Nothing else: the tests never look behind the protocol (raw rows, triggers and CHECK
///    constraints are each store's own tests, as `Storage/PaymentRepositoryTests.swift` is
///    SQLite's).
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// SQLite on a file in a fresh temporary directory (instances can share it).
    case sqliteFile
    /// SQLite in memory (one instance only).
    case sqliteMemory

    #if PostgreSQL
    /// PostgreSQL at `$PAYPANEL_TEST_POSTGRES_URL`, in a fresh schema per test (dropped when the
    /// test ends). Compiled only with the package trait `PostgreSQL`.
    case postgreSQL
    #endif

    var testDescription: String { rawValue }

    /// True when two instances of the store can work on one database (from two threads).
    var sharesOneDatabase: Bool {
        switch self {
        case .sqliteFile: true
        case .sqliteMemory: false
        #if PostgreSQL
        case .postgreSQL: true
        #endif
        }
    }

    /// The kinds the concurrency tests run on.
    static var shared: [StoreKind] { allCases.filter(\.sharesOneDatabase) }

    /// A fresh, empty store of this kind.
    func makeStore() throws -> StoreUnderTest {
        switch self {
        case .sqliteFile:
            let directory = try TemporaryDirectory("paypanel-conformance")
            let path = directory.file("payments.sqlite")
            let store = SQLitePaymentStore(database: try Database.openMigrated(path: path, clock: ManualClock(StorageFixtures.start)))
            return StoreUnderTest(kind: self, store: store, keepAlive: directory) {
                SQLitePaymentStore(database: try Database(path: path))
            }
        case .sqliteMemory:
            let store = SQLitePaymentStore(database: try Database.openMigrated(path: ":memory:", clock: ManualClock(StorageFixtures.start)))
            return StoreUnderTest(kind: self, store: store, keepAlive: nil, openAnother: nil)
        #if PostgreSQL
        case .postgreSQL:
            let url = try PostgreSQLTestServer.url()
            let schema = PostgreSQLTestServer.freshSchemaName("conformance")
            let store = try PostgreSQLPaymentStore(url: url, schema: schema, migrate: true)
            // Dropped with the first store, which the test holds (through its ledger) to the end.
            let cleanup = PostgreSQLTestSchema(url: url, schema: schema)
            store.onClose = { withExtendedLifetime(cleanup) {} }
            return StoreUnderTest(kind: self, store: store, keepAlive: nil) {
                try PostgreSQLPaymentStore(url: url, schema: schema, migrate: false)
            }
        #endif
        }
    }
}

/// One fresh store of a kind, what the suite puts on it, and a way to open a second instance
/// on the same database.
final class StoreUnderTest {
    let kind: StoreKind
    let store: any PaymentStore
    let ledger: PaymentLedger
    let idempotency: IdempotencyStore
    /// Whatever must live as long as the store (its temporary directory).
    private let keepAlive: AnyObject?
    private let another: (@Sendable () throws -> any PaymentStore)?

    init(kind: StoreKind, store: any PaymentStore, keepAlive: AnyObject?, openAnother: (@Sendable () throws -> any PaymentStore)?) {
        self.kind = kind
        self.store = store
        self.keepAlive = keepAlive
        self.another = openAnother
        ledger = PaymentLedger(store: store)
        idempotency = IdempotencyStore(store: store)
    }

    /// A way to open another instance of the store on the same database, to hand to other
    /// threads; only for kinds in `StoreKind.shared`.
    func opener() throws -> @Sendable () throws -> any PaymentStore {
        try #require(another, "\(kind) cannot share its database")
    }

    /// What the store holds, counted through the protocol only: a write that must write
    /// nothing leaves it equal.
    func contents() throws -> StoreContents {
        try store.read { transaction in
            var contents = StoreContents()
            for id in try transaction.allIntentIDs() {
                contents.intents.append(try transaction.intent(id))
                contents.attempts += try transaction.attempts(ofIntent: id).count
                contents.refunds += try transaction.refunds(ofIntent: id).count
                contents.timers += try transaction.timers(ofIntent: id).count
                contents.outbox += try transaction.outbox(ofIntent: id).count
            }
            contents.events = try transaction.eventCount()
            return contents
        }
    }
}

struct StoreContents: Equatable {
    var intents: [PaymentIntent?] = []
    var attempts = 0
    var refunds = 0
    var timers = 0
    var outbox = 0
    var events = 0
}
