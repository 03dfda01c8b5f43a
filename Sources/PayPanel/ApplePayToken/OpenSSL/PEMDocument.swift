/// The PEM blocks of a text file (RFC 7468): `-----BEGIN LABEL-----`, base64, `-----END LABEL-----`.
///
/// Text outside the blocks is ignored, as OpenSSL does: `openssl pkcs12` exports put "Bag
/// Attributes" lines before each block, and people paste keys with notes around them.
struct PEMDocument {
    struct Block {
        let label: String
        let der: [UInt8]
    }

    let blocks: [Block]

    var labels: [String] { blocks.map(\.label) }

    init(_ text: String) throws(KeyMaterialError) {
        var blocks: [Block] = []
        var current: (label: String, body: String)?
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let line = rawLine.trimmingPEMWhitespace()
            if let label = line.pemBoundaryLabel(kind: "BEGIN") {
                guard current == nil else {
                    throw .invalidEncoding(what: "PEM text", reason: "\"-----BEGIN \(label)-----\" inside the unfinished \(current!.label) block")
                }
                current = (label, "")
            } else if let label = line.pemBoundaryLabel(kind: "END") {
                guard let open = current else { continue }
                guard open.label == label else {
                    throw .invalidEncoding(what: "PEM text", reason: "the \(open.label) block ends with \"-----END \(label)-----\"")
                }
                guard let der = Base64.decode(open.body) else {
                    throw .invalidEncoding(what: "\(open.label) PEM block", reason: "its body is not valid base64")
                }
                blocks.append(Block(label: label, der: der))
                current = nil
            } else if current != nil {
                // RFC 1421 headers ("Proc-Type: 4,ENCRYPTED") only appear in encrypted keys.
                if line.contains(":") { throw .encryptedPrivateKey }
                current!.body += line
            }
        }
        if let open = current {
            throw .invalidEncoding(what: "PEM text", reason: "the \(open.label) block has no \"-----END \(open.label)-----\" line")
        }
        self.blocks = blocks
    }

    /// True when `bytes` contain a PEM boundary (and so are text, not DER).
    static func looksLikePEM(_ bytes: [UInt8]) -> Bool {
        let marker = Array("-----BEGIN ".utf8)
        guard bytes.count >= marker.count else { return false }
        for start in 0...(bytes.count - marker.count) where bytes[start] == marker[0] {
            if bytes[start..<start + marker.count].elementsEqual(marker) { return true }
        }
        return false
    }
}

extension Substring {
    fileprivate func trimmingPEMWhitespace() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}

extension String {
    /// `LABEL` for `-----BEGIN LABEL-----` (kind "BEGIN") or `-----END LABEL-----`.
    fileprivate func pemBoundaryLabel(kind: String) -> String? {
        let prefix = "-----\(kind) "
        guard hasPrefix(prefix), hasSuffix("-----"), count > prefix.count + 5 else { return nil }
        return String(dropFirst(prefix.count).dropLast(5))
    }
}
