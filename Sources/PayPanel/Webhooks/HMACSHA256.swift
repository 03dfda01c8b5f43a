/// HMAC-SHA-256 (RFC 2104) over the project's OpenSSL SHA-256: two hashes around the key
/// padded to one 64-byte block. Written out rather than bound from OpenSSL's MAC API because it
/// is eight lines, needs no new C shim, and RFC 4231's vectors check it (`WebhookSignatureTests`).
package enum HMACSHA256 {
    private static let blockSize = 64

    /// The 32-byte MAC of `message` under `key`.
    package static func mac(key: [UInt8], message: some Collection<UInt8>) -> [UInt8] {
        var block = key.count > blockSize ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = SHA256.hash(block.map { $0 ^ 0x36 } + Array(message))
        return SHA256.hash(block.map { $0 ^ 0x5c } + inner)
    }

    /// Equal length and bytes, in time that does not depend on where they differ.
    package static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
