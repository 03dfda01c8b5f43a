import Foundation

/// The team's APNs authentication key: the P-256 private key of an `AuthKey_KEYID.p8` file
/// (PKCS#8 PEM), with the key id and team id that go in the provider token.
///
/// The file must be readable by its owner only (mode 0600 or stricter): whoever reads it can
/// push to every app of the team. The key never appears in a message, a log or an error.
package struct APNsSigningKey: Sendable {
    /// The 10-character key id Apple shows for the key (the JWT header's `kid`).
    package let keyID: String
    /// The 10-character team id (the JWT's `iss`).
    package let teamID: String
    let privateKey: ECPrivateKey

    /// A key already in memory (tests).
    package init(keyID: String, teamID: String, privateKey: ECPrivateKey) throws(APNsConfigurationError) {
        try Self.checkIdentifier(keyID, what: "key id")
        try Self.checkIdentifier(teamID, what: "team id")
        self.keyID = keyID
        self.teamID = teamID
        self.privateKey = privateKey
    }

    /// Reads the `.p8` file at `path`: a regular file, mode 0600 or stricter, holding one
    /// unencrypted P-256 private key.
    package init(p8File path: String, keyID: String, teamID: String) throws(APNsConfigurationError) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw APNsConfigurationError("the APNs key file \(path) cannot be read: \(String(cString: strerror(errno)))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw APNsConfigurationError("the APNs key file \(path) is not a regular file")
        }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw APNsConfigurationError(
                "the APNs key file \(path) has mode \(String(mode, radix: 8)), readable by others: it signs pushes to every app of the team; "
                    + "make it readable by its owner only (chmod 600 \(path))")
        }
        guard let data = FileManager.default.contents(atPath: path), data.count <= 64 * 1024 else {
            throw APNsConfigurationError("the APNs key file \(path) cannot be read, or is larger than a key file can be")
        }
        let key: PrivateKey
        do {
            key = try PrivateKey(pemRepresentation: String(decoding: data, as: UTF8.self))
        } catch {
            throw APNsConfigurationError("the APNs key file \(path) holds no usable key: \(error.message)")
        }
        guard case .ec(let ec) = key else {
            throw APNsConfigurationError("the APNs key file \(path) holds an RSA key: APNs keys are EC P-256 (.p8 from the developer account)")
        }
        try self.init(keyID: keyID, teamID: teamID, privateKey: ec)
    }

    /// Apple's key and team ids are 10 upper-case letters and digits; anything else would be
    /// refused by APNs, so it is refused here with a clearer message.
    private static func checkIdentifier(_ value: String, what: String) throws(APNsConfigurationError) {
        guard value.utf8.count == 10, value.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }) else {
            throw APNsConfigurationError("the APNs \(what) must be 10 upper-case letters or digits, as the developer account shows it")
        }
    }
}

/// Why the APNs provider cannot be set up. The message names the setting; never the key.
package struct APNsConfigurationError: PayPanelError, Equatable {
    package let message: String
    package var code: String { "apns_configuration_invalid" }

    package init(_ message: String) {
        self.message = message
    }
}
