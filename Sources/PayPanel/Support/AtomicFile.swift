import Foundation
import PayPanelHTTP

/// Replaces a file's contents in one step: the bytes go to a new file in the same directory,
/// which `rename(2)` then moves over the old one (atomic within a file system), so a reader
/// finds the old contents or the new, never part of them.
///
/// Used instead of Foundation's `.atomic` / `atomically:` writes so that where the temporary
/// file lives, what happens to it on failure, and what is flushed to disk are written here,
/// not left to the platform's Foundation: the temporary file is `.<name>.<random>.tmp` beside
/// the target and is removed when a step fails (only a process killed between the write and the
/// rename leaves one, named after the file it was for).
package enum AtomicFile {
    /// Puts `bytes` at `path`, replacing any file there. A new file gets mode 0666 less the
    /// umask, as `open(2)` gives. With `durable`, the new file is flushed (`fsync`) before the
    /// rename and the directory after it, so that after a power loss `path` holds the old bytes
    /// or the new ones and never a short file.
    package static func replace(_ path: String, with bytes: [UInt8], durable: Bool) throws(AtomicFileError) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let (descriptor, temporary) = try createTemporaryFile(beside: url)
        var closed = false
        var renamed = false
        defer {
            if !closed { close(descriptor) }
            if !renamed { unlink(temporary) }
        }
        try writeAll(bytes, to: descriptor, path: temporary)
        if durable, fsync(descriptor) != 0 { throw AtomicFileError(step: "flushing", path: temporary, code: errno) }
        closed = true
        if close(descriptor) != 0 { throw AtomicFileError(step: "closing", path: temporary, code: errno) }
        guard rename(temporary, path) == 0 else { throw AtomicFileError(step: "renaming over", path: path, code: errno) }
        renamed = true
        if durable { try flushDirectory(directory) }
    }

    private static func createTemporaryFile(beside url: URL) throws(AtomicFileError) -> (Int32, String) {
        let directory = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        var lastError: Int32 = EEXIST
        // A name already taken (another writer's temporary file) is retried with a new one.
        for _ in 0..<8 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let temporary = (directory as NSString).appendingPathComponent(".\(name).\(suffix).tmp")
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if descriptor >= 0 { return (descriptor, temporary) }
            lastError = errno
            guard lastError == EEXIST else { break }
        }
        throw AtomicFileError(step: "creating a temporary file in", path: directory, code: lastError)
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(AtomicFileError) {
        let failure = bytes.withUnsafeBytes { POSIX.writeAll($0, to: descriptor) }
        if let failure { throw AtomicFileError(step: "writing", path: path, code: failure) }
    }

    private static func flushDirectory(_ directory: String) throws(AtomicFileError) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw AtomicFileError(step: "opening", path: directory, code: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw AtomicFileError(step: "flushing", path: directory, code: errno) }
    }
}

/// A step of `AtomicFile.replace` failed: what it was doing, on which path, and the system's
/// reason.
package struct AtomicFileError: Error, Equatable {
    let step: String
    let path: String
    /// The `errno` of the failed call.
    let code: Int32

    /// "renaming over /a/b.png failed: Permission denied".
    var reason: String { "\(step) \(path) failed: \(String(cString: strerror(code)))" }
}
