import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Keeps the input being fuzzed in memory and, if the process crashes on it (a trap, a bad
/// access), writes it to a file from the signal handler before dying — so the input that
/// crashed is saved and replayed as a regression test even though the fuzzer itself died.
///
/// Only async-signal-safe calls happen in the handler (open, write, close, signal, raise), on a
/// buffer and a path prepared beforehand.
enum CrashCapture {
    nonisolated(unsafe) private static var buffer: UnsafeMutableRawPointer?
    nonisolated(unsafe) private static var capacity = 0
    nonisolated(unsafe) private static var length = 0
    nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var directories: [UnsafeMutablePointer<CChar>?] = []

    /// The signals a crash of Swift code raises (a trap is SIGILL or SIGTRAP).
    private static let signals = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT]

    /// Installs the handlers; a crash writes the current input to `file`, creating `directory`
    /// and `kindDirectory` first (so nothing is created unless something crashed).
    static func arm(directory: String, kindDirectory: String, file: String) {
        path = strdup(file)
        directories = [strdup(directory), strdup(kindDirectory)]
        // A stack overflow is a crash too: the handler needs a stack of its own.
        let size = 256 * 1024
        var alternate = stack_t()
        alternate.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        alternate.ss_size = size
        alternate.ss_flags = 0
        sigaltstack(&alternate, nil)
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                for directory in CrashCapture.directories { if let directory { mkdir(directory, 0o755) } }
                if let path = CrashCapture.path, let buffer = CrashCapture.buffer {
                    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                    if descriptor >= 0 {
                        _ = write(descriptor, buffer, CrashCapture.length)
                        close(descriptor)
                    }
                }
                Glibc.signal(number, SIG_DFL)
                raise(number)
            }
            action.sa_flags = Int32(SA_ONSTACK)
            sigaction(signal, &action, nil)
        }
    }

    /// Makes `input` the one saved if the process crashes now.
    static func hold(_ input: [UInt8]) {
        if input.count > capacity {
            buffer?.deallocate()
            capacity = max(input.count, 2 * capacity, 4096)
            buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        }
        length = 0
        input.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress, let buffer { buffer.copyMemory(from: base, byteCount: bytes.count) }
        }
        length = input.count
    }

    /// Restores the default handlers.
    static func disarm() {
        for signal in signals { Glibc.signal(signal, SIG_DFL) }
    }
}
