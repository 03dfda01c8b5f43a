internal import COpenSSL

/// An OpenSSL call failed. The reason is OpenSSL's own error queue, drained into one line;
/// OpenSSL's messages name operations and ASN.1 structures, never key bytes.
public struct OpenSSLError: PayPanelError, Equatable {
    /// What PayPanel was doing, e.g. "reading the certificate".
    public let operation: String
    /// OpenSSL's reasons, oldest first, e.g. "asn1 encoding routines::wrong tag".
    public let reason: String

    public var code: String { "openssl_error" }
    public var message: String { "\(operation) failed: \(reason)" }

    package init(operation: String, reason: String) {
        self.operation = operation
        self.reason = reason
    }

    /// Drains the calling thread's OpenSSL error queue into an error for `operation`.
    static func drain(_ operation: String) -> OpenSSLError {
        OpenSSLError(operation: operation, reason: drainQueue() ?? "no reason given by OpenSSL")
    }

    /// Empties the calling thread's error queue and returns its reasons joined by "; ", or nil
    /// when it was empty. Called after a failure PayPanel handles itself, so a stale reason never
    /// shows up in a later, unrelated error.
    @discardableResult
    static func drainQueue() -> String? {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            // Keep the first few: a decoder failure can queue dozens of near-identical lines.
            guard reasons.count < 4 else { continue }
            let library = ERR_lib_error_string(code).map { String(cString: $0) }
            let reason = ERR_reason_error_string(code).map { String(cString: $0) } ?? "error \(code)"
            let text = library.map { "\($0): \(reason)" } ?? reason
            if !reasons.contains(text) { reasons.append(text) }
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }
}

extension Int32 {
    /// OpenSSL's convention: 1 (sometimes any positive value) is success.
    func check(_ operation: @autoclosure () -> String) throws(OpenSSLError) {
        guard self > 0 else { throw OpenSSLError.drain(operation()) }
    }
}
