import Foundation

/// Where secret API keys are kept: rows of id, name, SHA-256 of the key, creation and
/// revocation times. The key itself is never stored. Adopters hold the SQL
/// (`SQLiteAPIKeyStore`); the rules (generation, hashing, constant-time matching) are
/// `APIKeyRing`'s, written once above every store.
///
/// A key check reads what other connections may have just committed, and must not hold its
/// owner's thread while that reaches the disk (`FlushAwaitingStore.awaitingFlush`).
package protocol APIKeyStore: FlushAwaitingStore {
    /// Inserts a new key row.
    func insertAPIKey(_ record: APIKeyRecord) throws
    /// Every key, oldest first; revoked ones too when `includeRevoked`.
    func apiKeys(includeRevoked: Bool) throws -> [APIKeyRecord]
    /// Marks the key revoked at `now`; false when there is no such key or it already was.
    func revokeAPIKey(id: String, at now: Date) throws -> Bool
}

/// One stored API key: everything but the key.
package struct APIKeyRecord: Sendable, Equatable {
    /// `key_…`: shown in lists and logs in place of the key.
    package let id: String
    package let name: String
    /// Lower-case hex SHA-256 of the key.
    package let keyHash: String
    package let createdAt: Date
    package let revokedAt: Date?

    package init(id: String, name: String, keyHash: String, createdAt: Date, revokedAt: Date?) {
        self.id = id
        self.name = name
        self.keyHash = keyHash
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    package var isRevoked: Bool { revokedAt != nil }
}

/// A key just created: its row, and the key itself, which exists only in this value.
package struct CreatedAPIKey: Sendable {
    package let record: APIKeyRecord
    /// `sk_…`. Show it once; it cannot be read back.
    package let key: String
}

/// Why an API key operation was refused.
package struct APIKeyError: PayPanelError, Equatable {
    package let code: String
    package let message: String
}

/// The rules of secret API keys above any `APIKeyStore`: keys are `sk_` and 40 random
/// base-62 characters (about 238 bits), stored only as their SHA-256, and a presented key
/// is compared with every active hash in constant time, so neither a timing difference nor
/// the order of rows tells an attacker how close a guess was.
package final class APIKeyRing {
    package let store: any APIKeyStore

    package init(store: any APIKeyStore) {
        self.store = store
    }

    /// The prefix of every secret key.
    package static let keyPrefix = "sk_"
    private static let idAlphabet = Array("abcdefghijklmnopqrstuvwxyz")

    /// Creates and stores a new key named `name`.
    package func create(name: String, at now: Date) throws -> CreatedAPIKey {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 200 else {
            throw APIKeyError(code: "invalid_key_name", message: "a key name is 1 to 200 characters")
        }
        try SensitiveDigits.check(trimmed, field: "the key name")
        var random = BatchedRandomNumberGenerator()
        let key = Self.keyPrefix + Base62.random(length: 40, using: &random)
        // Letters only, so an id can never look like a card number in a log.
        let id = "key_" + String((0..<16).map { _ in Self.idAlphabet.randomElement(using: &random)! })
        let record = APIKeyRecord(id: id, name: trimmed, keyHash: Self.hash(key), createdAt: now, revokedAt: nil)
        try store.insertAPIKey(record)
        return CreatedAPIKey(record: record, key: key)
    }

    /// The active key `presented` is, or nil (unknown, malformed or revoked).
    package func authenticate(_ presented: String) throws -> APIKeyRecord? {
        let presentedHash = Array(Self.hash(presented).utf8)
        var match: APIKeyRecord?
        for record in try store.apiKeys(includeRevoked: false) {
            // Every row is compared in full: no early exit on a match or a mismatch.
            if Self.constantTimeEqual(presentedHash, Array(record.keyHash.utf8)) { match = record }
        }
        guard presented.hasPrefix(Self.keyPrefix) else { return nil }
        return match
    }

    /// Every key, oldest first.
    package func list(includeRevoked: Bool = true) throws -> [APIKeyRecord] {
        try store.apiKeys(includeRevoked: includeRevoked)
    }

    /// Revokes the key `id`; refused when unknown or already revoked.
    package func revoke(id: String, at now: Date) throws {
        guard try store.revokeAPIKey(id: id, at: now) else {
            let shown = JSONWriter.quoted(SensitiveDigits.redacted(id))
            throw APIKeyError(code: "api_key_not_found", message: "no active API key \(shown): list the keys to see their ids")
        }
    }

    /// True when there is at least one active key.
    package func hasActiveKey() throws -> Bool {
        !(try store.apiKeys(includeRevoked: false)).isEmpty
    }

    /// Lower-case hex SHA-256 of `key`.
    package static func hash(_ key: String) -> String {
        SHA256.hash(key).hexString
    }

    /// Equal length and bytes, taking the same time whatever the bytes.
    package static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
