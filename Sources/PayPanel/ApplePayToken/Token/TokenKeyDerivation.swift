/// The EC_v1 key derivation: NIST SP 800-56A single-step KDF with SHA-256 (one round, as the
/// 256-bit key is one hash long).
///
///     key = SHA-256(00000001 ‖ Z ‖ 0x0D ‖ "id-aes256-GCM" ‖ "Apple" ‖ partyV)
///
/// Z is the 32-byte ECDH shared secret and partyV the SHA-256 of the merchant identifier.
package enum TokenKeyDerivation {
    /// The round counter, big-endian.
    static let counter: [UInt8] = [0x00, 0x00, 0x00, 0x01]
    /// AlgorithmID: a length byte (13) and the algorithm name.
    static let algorithmID: [UInt8] = [0x0D] + Array("id-aes256-GCM".utf8)
    /// PartyUInfo: the sender.
    static let partyU: [UInt8] = Array("Apple".utf8)

    package static func symmetricKey(sharedSecret: [UInt8], partyV: [UInt8]) -> [UInt8] {
        precondition(sharedSecret.count == P256.byteCount, "Z must be exactly 32 bytes")
        var input = counter
        input.reserveCapacity(4 + 32 + algorithmID.count + partyU.count + partyV.count)
        input += sharedSecret
        input += algorithmID
        input += partyU
        input += partyV
        return SHA256.hash(input)
    }
}
