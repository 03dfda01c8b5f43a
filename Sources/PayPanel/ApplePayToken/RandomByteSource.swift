import Synchronization
internal import COpenSSL

/// Where random bytes come from. Injected wherever PayPanel needs randomness (a token's
/// cryptogram and ephemeral key when sealing), so tests can make it repeatable.
public protocol RandomByteSource: Sendable {
    /// `count` random bytes.
    func bytes(_ count: Int) -> [UInt8]
}

/// OpenSSL's CSPRNG (`RAND_bytes`): the source for real use.
public struct SystemRandomBytes: RandomByteSource {
    public init() {}

    public func bytes(_ count: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return output }
        // RAND_bytes fails only when the OS entropy source does: continuing would hand out
        // predictable keys, so stop.
        guard RAND_bytes(&output, Int32(count)) == 1 else {
            fatalError("RAND_bytes failed: \(OpenSSLError.drainQueue() ?? "no reason")")
        }
        return output
    }
}

/// A repeatable stream for tests and demos: SHA-256(seed ‖ counter) blocks. Not secret, not
/// for real keys.
package final class SeededRandomBytes: RandomByteSource {
    private let seed: [UInt8]
    private let state: Mutex<(counter: UInt64, buffer: [UInt8])>

    package init(seed: String) {
        self.seed = Array(seed.utf8)
        state = Mutex((0, []))
    }

    package func bytes(_ count: Int) -> [UInt8] {
        state.withLock { state in
            while state.buffer.count < count {
                var block = seed
                withUnsafeBytes(of: state.counter.bigEndian) { block.append(contentsOf: $0) }
                state.buffer += SHA256.hash(block)
                state.counter += 1
            }
            let output = Array(state.buffer.prefix(count))
            state.buffer.removeFirst(count)
            return output
        }
    }
}
