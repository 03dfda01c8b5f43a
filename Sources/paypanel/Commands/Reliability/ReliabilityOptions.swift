import Foundation
import MockProcessor
import PayPanel

/// Options and helpers the `soak` and `fuzz` commands share.
enum ReliabilityOptions {
    static let iterations = OptionSpec.value("--iterations", "n", help: "How many iterations to run.")
    static let seed = OptionSpec.value("--seed", "n", help: "Seeds every random choice: the same seed makes the same run (default 1).")
    static let directory = OptionSpec.value(
        "--dir", "path", help: "Keep the run's databases in this directory (created; default: a temporary one, removed afterwards).")

    /// `--seed`, default 1.
    static func seed(_ arguments: ParsedArguments) throws -> UInt64 {
        guard let text = arguments.value(seed.name) else { return 1 }
        guard let value = UInt64(text) else { throw UsageError("'--seed' takes a whole number from 0 to \(UInt64.max), not '\(text)'") }
        return value
    }

    /// The running binary's absolute path: each soak request runs it as a child process.
    static func executablePath() throws -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else {
            throw CLIFailure(code: "executable_not_found", message: "cannot find this program's own path (/proc/self/exe): run it on Linux with /proc mounted")
        }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The directory a run works in: `--dir` (created, kept) or a new temporary one (removed
    /// by the returned cleanup).
    static func workingDirectory(_ arguments: ParsedArguments, prefix: String) throws -> (path: String, cleanup: () -> Void) {
        if let path = arguments.value(directory.name) {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw CLIFailure(code: "directory_unusable", message: "cannot create the directory \(path): \(error.localizedDescription); choose another --dir")
            }
            let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            return (absolute, {})
        }
        let path = NSTemporaryDirectory() + "/paypanel-\(prefix)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIFailure(code: "directory_unusable", message: "cannot create a temporary directory \(path): \(error.localizedDescription); pass --dir")
        }
        return (path, { try? FileManager.default.removeItem(atPath: path) })
    }

    /// The mock processor's ledger at `path` as seen at `now`, in the library's terms.
    static func ledgerEffects(path: String, at now: Date) throws -> [ProcessorEffect] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try ProcessorLedger(path: path, clock: ManualClock(now)).entries(now: now).map(ProcessorEffect.init)
    }
}

/// Prints a check's findings, at most `limit` of them.
@MainActor
func printFindings(_ findings: [String], console: Console, limit: Int = 40) {
    for finding in findings.prefix(limit) { console.print("  ✗ \(finding)") }
    if findings.count > limit { console.print("  … and \(findings.count - limit) more (use --json for all)") }
}
