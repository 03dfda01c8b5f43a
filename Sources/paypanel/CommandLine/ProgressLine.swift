import Foundation

/// One status line on standard error, rewritten in place; only on a terminal, so scripts and
/// tests see clean output. For long work: benchmarks, soaks, fuzzing.
struct ProgressLine {
    let console: Console

    func show(_ text: String) {
        guard console.stderrIsTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
    }

    func clear() {
        guard console.stderrIsTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
