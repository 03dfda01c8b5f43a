import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP port on 127.0.0.1 (chosen by the system) that this test holds until the value goes
/// away. Listening, it is a port another server already serves; bound but not listening, a port
/// where connections are refused. Either way no other process can take it meanwhile.
final class HeldPort {
    private let descriptor: Int32
    let port: Int

    init(listening: Bool) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HeldPortError(reason: "socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let held = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        } && (!listening || listen(descriptor, 4) == 0)
        guard held else {
            let reason = errno
            close(descriptor)
            throw HeldPortError(reason: "holding a port on 127.0.0.1 failed: errno \(reason)")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}

struct HeldPortError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
