import Glibc

/// Small helpers over libc, so the loop's code reads as what it does rather than as casts.
package enum POSIX {
    /// `strerror` in lower case, for reasons such as "address already in use".
    static func describe(errno code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }

    /// Writes every byte of `bytes` to `descriptor` (a file or a pipe), going on after a partial
    /// write and retrying one that a signal interrupted; the `errno` of the write that failed
    /// (EIO for one that wrote nothing), or nil when all was written.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return written < 0 ? errno : EIO
            }
        }
        return nil
    }

    /// Closes a descriptor, retrying nothing: on Linux the descriptor is released even when
    /// close reports EINTR, and retrying could close a descriptor another thread just opened.
    static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// Sets an integer socket option; failure is ignored by callers where the option is an
    /// optimisation (TCP_NODELAY) and checked where it matters (SO_REUSEADDR).
    @discardableResult
    static func setOption(_ descriptor: Int32, level: Int32, name: Int32, value: Int32) -> Bool {
        var value = value
        return setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0
    }

    /// The numeric host and port in a socket address from `accept` or `getsockname`.
    static func remoteAddress(of storage: sockaddr_storage, length: socklen_t) -> HTTPRemoteAddress? {
        var storage = storage
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: 32)
        let status = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &service, socklen_t(service.count), NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard status == 0 else { return nil }
        let hostText = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let serviceText = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return HTTPRemoteAddress(host: hostText, port: Int(serviceText) ?? 0)
    }

    static let streamSocket = Int32(SOCK_STREAM.rawValue)
    static let nonBlockingCloseOnExec = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    static let noSignal = Int32(MSG_NOSIGNAL)
}
