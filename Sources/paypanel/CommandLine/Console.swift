import Foundation
import PayPanel

/// Standard input, output and error for one run of the program. Output is buffered (a
/// `payments list` of 100k rows must not make 100k system calls) and flushed before exit and
/// before anything interactive.
final class Console {
    private var outputBuffer: [UInt8] = []
    private let flushThreshold = 64 * 1024
    let environment: [String: String]

    init(environment: [String: String]) {
        self.environment = environment
        outputBuffer.reserveCapacity(flushThreshold)
    }

    var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
    var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Colour only on a terminal, and never when `NO_COLOR` is set (https://no-color.org).
    var useColor: Bool {
        stdoutIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// Writes to standard output (buffered).
    func print(_ text: String = "", terminator: String = "\n") {
        outputBuffer.append(contentsOf: text.utf8)
        outputBuffer.append(contentsOf: terminator.utf8)
        if outputBuffer.count >= flushThreshold { flush() }
    }

    /// Prints a JSON value, pretty on a terminal and compact otherwise (one document per line).
    func printJSON(_ value: JSONValue, pretty: Bool? = nil) {
        let style: JSONWriter.Style = (pretty ?? stdoutIsTerminal) ? .pretty : .compact
        print(JSONWriter.string(value, style: style))
    }

    /// Writes to standard error at once (after flushing standard output, to keep their order).
    func printError(_ text: String) {
        flush()
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    func flush() {
        guard !outputBuffer.isEmpty else { return }
        outputBuffer.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    break  // stdout closed (e.g. `| head`): nothing more can be shown
                }
                offset += written
            }
        }
        outputBuffer.removeAll(keepingCapacity: true)
    }

    /// All of standard input, as bytes.
    func readStandardInput() -> [UInt8] {
        flush()
        return Array(FileHandle.standardInput.readDataToEndOfFile())
    }

    /// One line of standard input without its line break, or nil at end of input.
    func readLine() -> String? {
        flush()
        return Swift.readLine(strippingNewline: true)
    }
}

/// What a command runs with: the console (and through it the environment) and the command path
/// for messages (`paypanel request validate`).
struct CommandContext {
    let console: Console
    let commandPath: String

    var environment: [String: String] { console.environment }
}
