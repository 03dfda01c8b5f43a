import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the benchmark commands that run servers or stores do around their measurement: say
/// when the build is a debug one (its figures measure Swift's debug code), give the run a
/// fresh private directory that is removed afterwards, and draw the step being run on a
/// terminal.
enum BenchRun {
    /// Runs `body` in a new directory under `parent` (default: the system's temporary
    /// directory), removed when it returns or throws.
    /// Runs on the caller's isolation, so `body` may use the caller's console.
    static func inFreshDirectory<T>(
        _ console: Console, parent: String?, isolation: isolated (any Actor)? = #isolation, _ body: (String) async throws -> T
    ) async throws -> T {
        #if DEBUG
        console.printError("note: this is a debug build: the figures are not representative; build with 'swift build -c release'")
        #endif
        let directory = try makeDirectory(in: parent)
        let interruption = DirectoryRemovalOnSignal(directory: directory)
        defer {
            interruption.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        return try await body(directory)
    }

    /// A progress line `label: step`, redrawn in place on a terminal and nothing otherwise.
    /// Sendable, so the benchmark's own task can call it (the console stays with the command).
    static func progress(_ console: Console, label: String) -> @Sendable (String) -> Void {
        let showsProgress = console.stderrIsTerminal
        return { line in
            if showsProgress { FileHandle.standardError.write(Data("\r\u{1B}[K\(label): \(line)".utf8)) }
        }
    }

    static func makeDirectory(in parent: String?) throws -> String {
        let base = parent.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? FileManager.default.temporaryDirectory
        let url = base.appending(path: "paypanel-bench-\(UUID().uuidString)", directoryHint: .isDirectory)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIFailure(
                code: "bench_directory_unusable",
                message: "cannot create the benchmark's temporary directory in \(base.path(percentEncoded: false)): check that it exists and is writable, or pass another --directory")
        }
        return url.path(percentEncoded: false)
    }
}

/// Removes a benchmark's directory when SIGINT (Ctrl-C), SIGTERM or SIGHUP arrives, then ends
/// the process as the signal would have (status 128 + its number). A benchmark's loop never
/// stops to look for an interruption, and the signals' default action would end the process
/// at once and leave megabytes of database files behind.
final class DirectoryRemovalOnSignal {
    static let signals = [SIGINT, SIGTERM, SIGHUP]
    private let sources: [any DispatchSourceSignal]

    init(directory: String) {
        var sources: [any DispatchSourceSignal] = []
        for number in Self.signals {
            // Caught by the source below instead of ending the process.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                try? FileManager.default.removeItem(atPath: directory)
                FileHandle.standardError.write(Data("\ninterrupted: removed the benchmark's files (\(directory))\n".utf8))
                // _exit, not exit: the benchmark's threads are still running, and exit's
                // handlers would tear down what they use under them.
                _exit(128 + number)
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    /// Gives the signals their default actions back (the benchmark is over).
    func stop() {
        for source in sources { source.cancel() }
        for number in Self.signals { signal(number, SIG_DFL) }
    }
}
