internal import COpenSSL

/// An `OSSL_PARAM` array that owns its keys and values.
///
/// An OSSL_PARAM holds raw pointers to its key name and its value, and OpenSSL reads them
/// after the call that built the array; a Swift String or Array passed to a C pointer
/// parameter lives only for that one call. So every key and value is copied into memory this
/// object owns, and wiped and freed with it (values may be private scalars).
final class OwnedParameters {
    private var allocations: [(pointer: UnsafeMutableRawPointer, count: Int)] = []
    private var parameters: [OSSL_PARAM] = []

    deinit {
        for allocation in allocations {
            OPENSSL_cleanse(allocation.pointer, allocation.count)
            allocation.pointer.deallocate()
        }
    }

    /// A NUL-terminated UTF-8 string value ("prime256v1").
    func addUTF8String(_ key: String, _ value: String) {
        let (pointer, count) = copy(Array(value.utf8) + [0])
        parameters.append(OSSL_PARAM_construct_utf8_string(cString(key), pointer.assumingMemoryBound(to: CChar.self), count - 1))
    }

    /// An octet string value (an encoded point).
    func addOctetString(_ key: String, _ bytes: [UInt8]) {
        let (pointer, count) = copy(bytes)
        parameters.append(OSSL_PARAM_construct_octet_string(cString(key), pointer, count))
    }

    /// An unsigned integer given big-endian (a private scalar); OpenSSL wants it in native order.
    func addUnsignedInteger(_ key: String, bigEndian bytes: [UInt8]) {
        let native = UInt16(1).littleEndian == 1 ? Array(bytes.reversed()) : bytes
        let (pointer, count) = copy(native)
        parameters.append(OSSL_PARAM_construct_BN(cString(key), pointer.assumingMemoryBound(to: UInt8.self), count))
    }

    /// Runs `body` with the terminated array.
    func withParameters<Result, Failure: Error>(
        _ body: (UnsafeMutablePointer<OSSL_PARAM>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var terminated = parameters + [OSSL_PARAM_construct_end()]
        return try terminated.withUnsafeMutableBufferPointer { (buffer) throws(Failure) -> Result in
            try body(buffer.baseAddress!)
        }
    }

    private func copy(_ bytes: [UInt8]) -> (UnsafeMutableRawPointer, Int) {
        let count = max(bytes.count, 1)
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: count)
        bytes.withUnsafeBytes { pointer.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        allocations.append((pointer, count))
        return (pointer, bytes.count)
    }

    private func cString(_ text: String) -> UnsafePointer<CChar> {
        let (pointer, _) = copy(Array(text.utf8) + [0])
        return UnsafePointer(pointer.assumingMemoryBound(to: CChar.self))
    }
}
