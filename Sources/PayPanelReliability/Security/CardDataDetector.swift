import PayPanel
/// Finds card data in text meant for people (error messages, logs, standard error): whole runs
/// of 13–19 digits that pass the Luhn check — what a card number or DPAN looks like — and any of
/// the given secrets (a cryptogram, a key) verbatim.
///
/// `SensitiveDigits` keeps card numbers out of stored and shown text (the same 13–19-digit Luhn
/// rule, grouped forms included); this is the check that proves it held, so it is deliberately
/// independent of it.
public struct CardDataDetector: Sendable {
    /// Exact strings that must never appear (cryptograms, DPANs, key material in text form).
    public let secrets: [String]

    /// A detector that also looks for `secrets` (those shorter than 8 characters are ignored).
    public init(secrets: [String] = []) {
        self.secrets = secrets.filter { $0.utf8.count >= 8 }
    }

    /// What was found in `text`, one description each (never the data itself: the last four
    /// digits only). Empty when the text is clean.
    public func findings(in text: String) -> [String] {
        var found: [String] = []
        var run: [UInt8] = []
        func closeRun() {
            defer { run.removeAll(keepingCapacity: true) }
            // A whole run of card-number length that passes Luhn (a longer run — a huge amount
            // echoed back — is not a card number).
            guard (13...19).contains(run.count), Self.passesLuhn(run) else { return }
            found.append("a \(run.count)-digit card-like number ending \(String(decoding: run.suffix(4), as: UTF8.self))")
        }
        for byte in text.utf8 {
            if byte >= 0x30 && byte <= 0x39 {
                run.append(byte)
            } else {
                closeRun()
            }
        }
        closeRun()
        for secret in secrets where text.contains(secret) {
            found.append("a secret (\(secret.utf8.count) characters) verbatim")
        }
        return found
    }

    /// The Luhn check over ASCII digits.
    public static func passesLuhn(_ digits: some Collection<UInt8>) -> Bool {
        var sum = 0
        for (index, byte) in digits.reversed().enumerated() {
            var digit = Int(byte) - 0x30
            if index % 2 == 1 {
                digit *= 2
                if digit > 9 { digit -= 9 }
            }
            sum += digit
        }
        return sum % 10 == 0
    }
}
