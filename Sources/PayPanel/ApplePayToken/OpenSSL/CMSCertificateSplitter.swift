/// Takes the certificates out of a CMS SignedData encoding before OpenSSL parses it.
///
/// Why: OpenSSL 3.0 decodes the public key of every certificate it parses through its provider
/// decoder machinery, which makes `d2i_CMS_ContentInfo` on an Apple Pay signature (two
/// certificates) cost several ECDH operations. Apple signs with a handful of certificates, so
/// PayPanel parses each distinct certificate once (`CertificateCache`) and hands OpenSSL the
/// SignedData without them; `CMS_verify` gets the parsed certificates as its `certs` argument.
/// The signature does not cover the certificate set, so removing it changes nothing verified.
///
/// The reader understands exactly the BER Apple and OpenSSL write: single-byte tags, definite
/// lengths up to four bytes, and indefinite lengths (which Apple uses) on constructed values.
enum CMSCertificateSplitter {
    struct Split {
        /// The ContentInfo without the SignedData `certificates` field (definite lengths on the
        /// three rebuilt wrappers; every other value copied byte for byte).
        let withoutCertificates: [UInt8]
        /// The encoding of each certificate in the set, in order.
        let certificates: [[UInt8]]
    }

    static func split(_ ber: [UInt8]) throws(OpenSSLError) -> Split {
        let reader = BERReader(bytes: ber)
        let contentInfo = try reader.element(at: 0, depth: 0)
        guard contentInfo.tag == 0x30, contentInfo.end == ber.count else {
            throw reader.failure(contentInfo.end == ber.count ? "it is not a SEQUENCE" : "bytes follow the structure")
        }
        let contentInfoChildren = try reader.children(of: contentInfo)
        guard contentInfoChildren.count == 2, contentInfoChildren[0].tag == 0x06, contentInfoChildren[1].tag == 0xA0 else {
            throw reader.failure("it is not a ContentInfo")
        }
        let explicitContent = try reader.children(of: contentInfoChildren[1])
        guard explicitContent.count == 1, explicitContent[0].tag == 0x30 else { throw reader.failure("its content is not a SEQUENCE") }
        var keptFields: [UInt8] = []
        var certificates: [[UInt8]] = []
        for field in try reader.children(of: explicitContent[0]) {
            if field.tag == 0xA0 {  // certificates [0] IMPLICIT CertificateSet
                for certificate in try reader.children(of: field) where certificate.tag == 0x30 {
                    certificates.append(Array(ber[certificate.start..<certificate.end]))
                }
            } else {
                keptFields += ber[field.start..<field.end]
            }
        }
        let signedData = DER.wrap(tag: 0x30, keptFields)
        let content = DER.wrap(tag: 0xA0, signedData)
        let contentType = Array(ber[contentInfoChildren[0].start..<contentInfoChildren[0].end])
        return Split(withoutCertificates: DER.wrap(tag: 0x30, contentType + content), certificates: certificates)
    }
}

/// One BER value: where its header, contents and end are.
private struct BERElement {
    let tag: UInt8
    let start: Int
    let contentStart: Int
    /// Where the contents end (before the end-of-contents octets of an indefinite length).
    let contentEnd: Int
    /// Where the whole value ends.
    let end: Int
}

private struct BERReader {
    let bytes: [UInt8]
    /// Nesting allowed inside indefinite lengths: far more than CMS needs, few enough that a
    /// hostile input cannot exhaust the stack.
    static let maximumDepth = 32

    func failure(_ reason: String) -> OpenSSLError {
        OpenSSLError(operation: "reading the CMS signature", reason: reason)
    }

    func element(at start: Int, depth: Int) throws(OpenSSLError) -> BERElement {
        guard depth <= Self.maximumDepth else { throw failure("values nested too deeply") }
        guard start + 2 <= bytes.count else { throw failure("truncated") }
        let tag = bytes[start]
        guard tag & 0x1F != 0x1F else { throw failure("multi-byte tags are not used by CMS") }
        let lengthByte = bytes[start + 1]
        if lengthByte == 0x80 {
            guard tag & 0x20 != 0 else { throw failure("an indefinite length on a primitive value") }
            // Walk the children up to the end-of-contents octets (00 00).
            var position = start + 2
            while true {
                guard position + 2 <= bytes.count else { throw failure("an indefinite length without its end") }
                if bytes[position] == 0, bytes[position + 1] == 0 {
                    return BERElement(tag: tag, start: start, contentStart: start + 2, contentEnd: position, end: position + 2)
                }
                position = try element(at: position, depth: depth + 1).end
            }
        }
        var length = 0
        var contentStart = start + 2
        if lengthByte < 0x80 {
            length = Int(lengthByte)
        } else {
            let count = Int(lengthByte & 0x7F)
            guard (1...4).contains(count), start + 2 + count <= bytes.count else { throw failure("a bad length") }
            for byte in bytes[(start + 2)..<(start + 2 + count)] { length = length << 8 | Int(byte) }
            contentStart += count
        }
        guard length <= bytes.count - contentStart else { throw failure("truncated") }
        return BERElement(tag: tag, start: start, contentStart: contentStart, contentEnd: contentStart + length, end: contentStart + length)
    }

    func children(of parent: BERElement) throws(OpenSSLError) -> [BERElement] {
        guard parent.tag & 0x20 != 0 else { throw failure("a primitive value where a constructed one belongs") }
        var children: [BERElement] = []
        var position = parent.contentStart
        while position < parent.contentEnd {
            let child = try element(at: position, depth: 1)
            guard child.end <= parent.contentEnd else { throw failure("a value overruns its container") }
            children.append(child)
            position = child.end
        }
        return children
    }
}

/// DER length encoding for the rebuilt wrappers.
private enum DER {
    static func wrap(tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
        var output = [tag]
        let count = contents.count
        if count < 0x80 {
            output.append(UInt8(count))
        } else {
            var lengthBytes: [UInt8] = []
            var remaining = count
            while remaining > 0 {
                lengthBytes.insert(UInt8(remaining & 0xFF), at: 0)
                remaining >>= 8
            }
            output.append(0x80 | UInt8(lengthBytes.count))
            output += lengthBytes
        }
        return output + contents
    }
}
