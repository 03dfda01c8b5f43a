/// The root certificates Apple Pay payment tokens chain to, built into the library so a
/// verifier trusts Apple's root and nothing else unless it is told otherwise.
///
/// Apple Root CA - G3 is public (https://www.apple.com/certificateauthority/); it is embedded
/// here as PEM and pinned by the SHA-256 of its DER encoding, checked when it is first used:
/// an edited constant stops the program instead of quietly trusting another key.
public enum ApplePayRoots {
    /// SHA-256 of the DER encoding of Apple Root CA - G3, as Apple publishes it
    /// (63:34:3A:BF:…:3E:91:79), in lower-case hex.
    public static let appleRootCAG3SHA256 = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    /// Apple Root CA - G3 (P-384, valid 2014-04-30 to 2039-04-30): the root of every Apple Pay
    /// payment token, production and sandbox alike, and the default trusted root of
    /// `ApplePayTokenVerifier`.
    public static let appleRootCAG3: Certificate = {
        do throws(RootPinError) {
            return try pinned(pem: appleRootCAG3PEM, sha256: appleRootCAG3SHA256)
        } catch {
            fatalError("the embedded Apple Root CA - G3 is unusable: \(error.message)")
        }
    }()

    /// Parses the first certificate of `pem` and checks its DER's SHA-256 is `sha256` (hex).
    package static func pinned(pem: String, sha256: String) throws(RootPinError) -> Certificate {
        let certificate: Certificate
        do {
            certificate = try Certificate(pemRepresentation: pem)
        } catch {
            throw .unreadable(reason: error.message)
        }
        guard let expected = [UInt8](hexString: sha256), certificate.sha256Fingerprint == expected else {
            throw .fingerprintMismatch(expected: sha256, found: certificate.sha256Fingerprint.hexString)
        }
        return certificate
    }

    /// Apple Root CA - G3, from https://www.apple.com/certificateauthority/AppleRootCA-G3.cer.
    static let appleRootCAG3PEM = """
        -----BEGIN CERTIFICATE-----
        MIICQzCCAcmgAwIBAgIILcX8iNLFS5UwCgYIKoZIzj0EAwMwZzEbMBkGA1UEAwwS
        QXBwbGUgUm9vdCBDQSAtIEczMSYwJAYDVQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9u
        IEF1dGhvcml0eTETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwHhcN
        MTQwNDMwMTgxOTA2WhcNMzkwNDMwMTgxOTA2WjBnMRswGQYDVQQDDBJBcHBsZSBS
        b290IENBIC0gRzMxJjAkBgNVBAsMHUFwcGxlIENlcnRpZmljYXRpb24gQXV0aG9y
        aXR5MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzB2MBAGByqGSM49
        AgEGBSuBBAAiA2IABJjpLz1AcqTtkyJygRMc3RCV8cWjTnHcFBbZDuWmBSp3ZHtf
        TjjTuxxEtX/1H7YyYl3J6YRbTzBPEVoA/VhYDKX1DyxNB0cTddqXl5dvMVztK517
        IDvYuVTZXpmkOlEKMaNCMEAwHQYDVR0OBBYEFLuw3qFYM4iapIqZ3r6966/ayySr
        MA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMDA2gA
        MGUCMQCD6cHEFl4aXTQY2e3v9GwOAEZLuN+yRhHFD/3meoyhpmvOwgPUnPWTxnS4
        at+qIxUCMG1mihDK1A3UT82NQz60imOlM27jbdoXt2QfyFMm+YhidDkLF1vLUagM
        6BgD56KyKA==
        -----END CERTIFICATE-----
        """
}

/// Why an embedded root could not be pinned: a build defect, never a run-time condition.
package enum RootPinError: PayPanelError, Equatable {
    case unreadable(reason: String)
    case fingerprintMismatch(expected: String, found: String)

    package var code: String {
        switch self {
        case .unreadable: "root_unreadable"
        case .fingerprintMismatch: "root_fingerprint_mismatch"
        }
    }

    package var message: String {
        switch self {
        case .unreadable(let reason):
            "the embedded root certificate cannot be read (\(reason))"
        case .fingerprintMismatch(let expected, let found):
            "the embedded root certificate's SHA-256 is \(found), not the pinned \(expected): it was altered; restore it from Apple"
        }
    }
}
