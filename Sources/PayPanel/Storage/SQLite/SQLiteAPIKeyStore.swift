import Foundation

/// `APIKeyStore` on the payments database's `api_keys` table (migration 0004). One owner,
/// like its `Database`; the HTTP server gives it a connection of its own.
package final class SQLiteAPIKeyStore: APIKeyStore {
    package let database: Database

    /// A store on an open, migrated payments database.
    package init(database: Database) {
        self.database = database
    }

    package func insertAPIKey(_ record: APIKeyRecord) throws {
        try database.write {
            try database.execute(
                SharedSQL.insertAPIKey.sqlite,
                [record.id, record.name, record.keyHash, record.createdAt, record.revokedAt])
        }
    }

    package func apiKeys(includeRevoked: Bool) throws -> [APIKeyRecord] {
        let filter = includeRevoked ? "" : " WHERE revoked_at IS NULL"
        return try database.read {
            try database.queryAll("SELECT id, name, key_hash, created_at, revoked_at FROM api_keys\(filter) ORDER BY created_at, id", []) { row in
                APIKeyRecord(
                    id: row.string(0), name: row.string(1), keyHash: row.string(2),
                    createdAt: Timestamp.date(epochMilliseconds: row.int64(3)),
                    revokedAt: row.optionalInt64(4).map { Timestamp.date(epochMilliseconds: $0) })
            }
        }
    }

    /// The settled read of the keys leaves its wait to one at the end, which suspends the owner
    /// (`Database.awaitingFlush`).
    package nonisolated(nonsending) func awaitingFlush<T>(_ body: () throws -> T) async throws -> T {
        try await database.awaitingFlush(body)
    }

    package func revokeAPIKey(id: String, at now: Date) throws -> Bool {
        try database.write {
            try database.execute(SharedSQL.revokeAPIKey.sqlite, [now, id])
            return database.changes == 1
        }
    }
}
