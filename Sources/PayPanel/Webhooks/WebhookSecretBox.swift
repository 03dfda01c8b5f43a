import Foundation

/// Seals endpoint secrets for the database with AES-256-GCM under a master key kept outside
/// it (`WebhookKeyFile`). Each secret version gets its own key, SHA-256(master ‖ endpoint id ‖
/// version), so every key encrypts exactly one message, which is what makes `AESGCM`'s fixed
/// IV safe here, as it is for Apple Pay tokens. The endpoint id and version are bound into the
/// key: a sealed secret copied onto another row does not open.
package struct WebhookSecretBox: Sendable {
    private let masterKey: [UInt8]

    /// A box on a 32-byte master key.
    package init(masterKey: [UInt8]) throws(WebhookStoreError) {
        guard masterKey.count == 32 else { throw WebhookStoreError("the webhook secret key must be 32 bytes, not \(masterKey.count)") }
        self.masterKey = masterKey
    }

    package func seal(_ secret: WebhookSecret, endpointID: String, version: Int64) throws -> [UInt8] {
        try AESGCM.seal(secret.bytes, key: key(endpointID: endpointID, version: version))
    }

    package func open(_ sealed: [UInt8], endpointID: String, version: Int64) throws -> WebhookSecret {
        guard let bytes = try AESGCM.open(sealed, key: key(endpointID: endpointID, version: version)) else {
            throw WebhookStoreError(
                "the secret of webhook endpoint \(endpointID) does not open with this key file: the database was moved without its .webhook-key file, or the file was replaced")
        }
        return WebhookSecret(bytes: bytes)
    }

    private func key(endpointID: String, version: Int64) -> [UInt8] {
        SHA256.hash(masterKey + Array("paypanel-webhook-secret|\(endpointID)|\(version)".utf8))
    }
}

/// The master key of `WebhookSecretBox`: 32 random bytes in a file of its own, mode 0600,
/// beside the database (`<database>.webhook-key`), created on first use. Back it up with the
/// database; without it the stored secrets cannot be opened (rotate them).
package enum WebhookKeyFile {
    /// The key file that goes with the database at `databasePath`.
    package static func path(forDatabase databasePath: String) -> String { databasePath + ".webhook-key" }

    /// Reads the key at `path`, creating it (0600, random) when missing.
    package static func loadOrCreate(path: String, random: any RandomByteSource = SystemRandomBytes()) throws -> [UInt8] {
        if let data = FileManager.default.contents(atPath: path) {
            guard data.count == 32 else { throw WebhookStoreError("\(path) is not a webhook key file (it holds \(data.count) bytes, not 32)") }
            return Array(data)
        }
        let key = random.bytes(32)
        // O_EXCL: two processes starting at once must not both write a different key.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor < 0 {
            if errno == EEXIST, let data = FileManager.default.contents(atPath: path), data.count == 32 { return Array(data) }
            throw WebhookStoreError("cannot create the webhook key file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let written = key.withUnsafeBytes { write(descriptor, $0.baseAddress, 32) }
        guard written == 32, fsync(descriptor) == 0 else {
            unlink(path)
            throw WebhookStoreError("cannot write the webhook key file \(path)")
        }
        return key
    }
}
