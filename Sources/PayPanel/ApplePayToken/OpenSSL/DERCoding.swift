internal import COpenSSL

/// The two calling conventions of OpenSSL's `i2d_*` / `d2i_*` functions, in one place so every
/// wrapper checks lengths and trailing bytes the same way.
enum DERCoding {
    /// Runs an `i2d_*` function twice: once for the length, once to write.
    static func encode(
        _ operation: @autoclosure () -> String,
        _ i2d: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) throws(OpenSSLError) -> [UInt8] {
        let length = i2d(nil)
        guard length > 0 else { throw OpenSSLError.drain(operation()) }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d(&cursor)
        }
        guard written == length else { throw OpenSSLError.drain(operation()) }
        return bytes
    }

    /// Runs a `d2i_*` function over all of `bytes` and returns the new object (the caller owns
    /// it). Fails when OpenSSL refuses the input, when bytes are left over (a valid structure
    /// followed by junk is not valid input) or when `check` refuses the object; `free` releases
    /// the object in the last two cases. So the object handed back has passed every check, and
    /// an owner that takes it has nothing left to fail on (docs/architecture.md, "Who frees C
    /// handles").
    static func decode(
        _ bytes: some Collection<UInt8>, _ operation: @autoclosure () -> String,
        free: (OpaquePointer) -> Void,
        check: (OpaquePointer) throws(OpenSSLError) -> Void = { _ in },
        _ d2i: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?
    ) throws(OpenSSLError) -> OpaquePointer {
        let input = Array(bytes)
        let (object, consumed): (OpaquePointer?, Int) = input.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return (nil, 0) }
            var cursor: UnsafePointer<UInt8>? = base
            let object = d2i(&cursor, buffer.count)
            return (object, cursor.map { $0 - base } ?? 0)
        }
        guard let object else {
            if input.isEmpty { throw OpenSSLError(operation: operation(), reason: "no bytes to decode") }
            throw OpenSSLError.drain(operation())
        }
        guard consumed == input.count else {
            free(object)
            throw OpenSSLError(operation: operation(), reason: "\(input.count - consumed) unexpected bytes after the structure")
        }
        do throws(OpenSSLError) {
            try check(object)
        } catch {
            free(object)
            throw error
        }
        return object
    }
}
