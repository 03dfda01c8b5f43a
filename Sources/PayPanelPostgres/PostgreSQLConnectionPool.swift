#if PostgreSQL
import Foundation
import PayPanel
import Synchronization

/// A small pool of connections to one PostgreSQL database and schema. The stores a
/// `PostgreSQLStoreFactory` opens share one: the payments store, the checkout desk, the API-key
/// checks and the idempotency keys of one `serve` borrow from the same few connections instead
/// of holding one each. A store opened on its own gets a pool of its own, closed with it.
///
/// A connection is borrowed for one transaction and given back; a broken one, or one left
/// inside a transaction, is closed instead of reused. At most `idleCapacity` stay open idle.
final class PostgreSQLConnectionPool: Sendable {
    let conninfo: String
    let schema: String
    let idleCapacity: Int
    /// The round trips of every connection this pool opened (`PostgreSQLRoundTrips`).
    let roundTrips = PostgreSQLRoundTrips()
    private let idle = Mutex<[PostgreSQLConnection]>([])

    init(conninfo: String, schema: String, idleCapacity: Int = 4) {
        self.conninfo = conninfo
        self.schema = schema
        self.idleCapacity = idleCapacity
    }

    /// An idle connection, or a new one.
    func borrow() throws(PostgreSQLError) -> PostgreSQLConnection {
        if let connection = idle.withLock({ $0.popLast() }) { return connection }
        return try PostgreSQLConnection.open(conninfo: conninfo, schema: schema, roundTrips: roundTrips)
    }

    /// Takes `connection` back for reuse, unless it is broken or not idle.
    func giveBack(_ connection: PostgreSQLConnection) {
        guard !connection.isBroken, connection.isIdle else { return }
        idle.withLock { connections in
            if connections.count < idleCapacity { connections.append(connection) }
        }
    }

    /// Runs `body` on a borrowed connection and gives it back.
    @discardableResult
    func withConnection<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        let connection = try borrow()
        defer { giveBack(connection) }
        return try body(connection)
    }
}
#endif
