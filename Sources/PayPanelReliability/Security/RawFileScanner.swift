import Foundation
import PayPanel
import PayPanelDemo

/// Searches files byte by byte — the database, its -wal and -shm, the processor's ledger —
/// for data that must never be stored: card numbers, DPANs, cryptograms, private keys. SQL is
/// not trusted here: free pages, the write-ahead log and overflow pages are searched too.
public struct RawFileScanner: Sendable {
    /// Something that must not be found, with a name for reports (never the value itself).
    public struct Needle: Sendable {
        public let name: String
        /// The byte patterns that would reveal it (ASCII text, UTF-16, raw bytes…).
        public let patterns: [[UInt8]]

        /// `text` as UTF-8 and UTF-16LE/BE (SQLite may store text as UTF-16).
        public static func text(_ name: String, _ text: String) -> Needle {
            let utf8 = Array(text.utf8)
            let utf16le = text.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
            let utf16be = text.utf16.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
            return Needle(name: name, patterns: [utf8, utf16le, utf16be])
        }

        /// Raw bytes (a decoded cryptogram, a key).
        public static func bytes(_ name: String, _ bytes: [UInt8]) -> Needle {
            Needle(name: name, patterns: [bytes])
        }

        /// A needle named `name`; patterns shorter than 8 bytes are dropped (they match by chance).
        public init(name: String, patterns: [[UInt8]]) {
            self.name = name
            self.patterns = patterns.filter { $0.count >= 8 }
        }
    }

    public let needles: [Needle]

    /// A scanner for `needles`.
    public init(needles: [Needle]) {
        self.needles = needles
    }

    /// What was found where: `"<needle> in <file> at byte <offset>"`, one per needle and file.
    public func findings(in paths: [String]) -> [String] {
        var found: [String] = []
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let bytes = [UInt8](data)
            for needle in needles {
                for pattern in needle.patterns {
                    if let offset = Self.firstOffset(of: pattern, in: bytes) {
                        found.append("\(needle.name) in \((path as NSString).lastPathComponent) at byte \(offset)")
                        break
                    }
                }
            }
        }
        return found
    }

    /// Files in `paths` whose mode lets anyone but the owner read or write them.
    public static func looseModes(_ paths: [String]) -> [String] {
        paths.compactMap { path in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
            else { return nil }
            return mode & 0o077 == 0 ? nil : "\((path as NSString).lastPathComponent) is mode \(String(mode, radix: 8)), not 600"
        }
    }

    static func firstOffset(of pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
        var index = 0
        let last = bytes.count - pattern.count
        while index <= last {
            if bytes[index] == first {
                var matched = true
                for offset in 1..<pattern.count where bytes[index + offset] != pattern[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }
}

extension RawFileScanner.Needle {
    /// The private keys the program holds (the test merchants' and the signing leaf's), as PEM
    /// text and as DER bytes.
    public static var embeddedPrivateKeys: [RawFileScanner.Needle] {
        ["merchant-ec.key", "merchant-rsa.key", "signing-leaf.key"].flatMap { name -> [RawFileScanner.Needle] in
            let pem = ApplePayTestKeys.file(name)
            let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }
            var needles = body.filter { $0.count >= 40 }.prefix(3).map { RawFileScanner.Needle.text("private key \(name) (PEM)", String($0)) }
            if let der = Base64.decode(body.joined()) {
                // A window from the middle of the DER: the secret part, not the common header.
                let middle = der.count / 2
                needles.append(.bytes("private key \(name) (DER)", Array(der[max(0, middle - 16)..<min(der.count, middle + 16)])))
            }
            return needles
        }
    }
}
