import Foundation
import PayPanel

/// Where `bench serve` keeps its payments: a fresh SQLite file per run, or (with the
/// `PostgreSQL` trait) a fresh schema per run on one PostgreSQL database. Every `serve` child
/// of a run is given the same `--db`, so two children share one database as two hosts behind
/// a load balancer would; the in-process side gets a database of its own.
public struct ServeBenchmarkDatabase: Sendable {
    /// One fresh database: what `serve --db` is given, and its stores for this process.
    public struct Fresh: Sendable {
        public let argument: String
        package let stores: any PaymentStoreFactory

        package init(argument: String, stores: any PaymentStoreFactory) {
            self.argument = argument
            self.stores = stores
        }
    }

    /// `sqlite` or `postgresql`, for the report.
    public let kind: String
    /// Makes the fresh database of run `label` (letters, digits and underscores), whose
    /// files, when it has any, go in `directory`.
    public let makeFresh: @Sendable (_ label: String, _ directory: String) throws -> Fresh

    public init(kind: String, makeFresh: @escaping @Sendable (_ label: String, _ directory: String) throws -> Fresh) {
        self.kind = kind
        self.makeFresh = makeFresh
    }

    /// A SQLite file per run, in the run's directory (removed with it).
    public static let sqlite = ServeBenchmarkDatabase(kind: "sqlite") { label, directory in
        let path = directory + "/\(label).sqlite"
        return Fresh(argument: path, stores: SQLiteStoreFactory(path: path, clock: SystemClock()))
    }
}
