/// A `RandomNumberGenerator` over a `RandomByteSource`, reading 256 bytes at a time.
///
/// Why: an id draws 24 characters, each one `next()`, and `SystemRandomNumberGenerator` makes a
/// system call (`getrandom`) per `next()`: 48 calls per payment, counted with `strace -c` over
/// `paypanel bench lifecycle`. Over `SystemRandomBytes` (OpenSSL's CSPRNG, seeded by the
/// system) one generator per id makes one call for all of them. The values are the source's
/// bytes, as unpredictable as they are; they only wait in this struct until used.
///
/// Every id and secret drawn from the system's randomness uses it: the mock processor's object
/// ids drew one `getrandom` per character too (99 calls per create → capture → refund flow of
/// `bench processor`), so `SystemRandomNumberGenerator` is used nowhere in the sources
/// (`BatchedRandomNumberGeneratorTests.noSourceDrawsFromTheSystemGeneratorAWordAtATime`).
package struct BatchedRandomNumberGenerator: RandomNumberGenerator {
    private static let batch = 256
    private let source: any RandomByteSource
    private var bytes: [UInt8] = []
    private var position = 0

    package init(source: any RandomByteSource = SystemRandomBytes()) {
        self.source = source
    }

    package mutating func next() -> UInt64 {
        if position + 8 > bytes.count {
            bytes = source.bytes(Self.batch)
            position = 0
        }
        var value: UInt64 = 0
        for offset in 0..<8 { value = value << 8 | UInt64(bytes[position + offset]) }
        position += 8
        return value
    }
}
