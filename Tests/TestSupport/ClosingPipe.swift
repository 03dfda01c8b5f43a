import Foundation
import Glibc

/// A pipe whose two ends are close-on-exec from the start, for a test that hands one end to a
/// child as its standard output or error: a child another test spawns meanwhile inherits
/// neither, so the reader's end of file comes when this test's child is gone. (`pipe()` and a
/// later `fcntl` would leave a moment for that; Glibc's module has no `pipe2`.) It is a FIFO in
/// `directory`, opened at both ends with `O_CLOEXEC`.
public struct ClosingPipe: Sendable {
    public let readEnd: Int32
    public let writeEnd: Int32

    public init(in directory: TemporaryDirectory) throws {
        let path = directory.file("pipe-\(UUID().uuidString)")
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { unlink(path) }
        // Non-blocking, so opening the read end does not wait for a writer; blocking again once
        // the write end is open.
        let readEnd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard readEnd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let writeEnd = open(path, O_WRONLY | O_CLOEXEC)
        guard writeEnd >= 0 else {
            close(readEnd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) & ~O_NONBLOCK)
        self.readEnd = readEnd
        self.writeEnd = writeEnd
    }

    /// Everything readable from the read end until every write end is closed (blocking: call
    /// it on a thread of its own, `onThread`).
    public func readToEnd() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
