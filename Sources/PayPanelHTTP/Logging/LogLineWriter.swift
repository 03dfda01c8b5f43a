import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Log lines for a file descriptor (standard error, say), written by a thread of their own, so
/// that whoever logs never waits for whoever reads the log.
///
/// Why: the server's access log is called on its one event-loop thread, once per request
/// (`HTTPServer.Configuration.accessLog`: "keep it quick and non-blocking"). A `write(2)` to a
/// pipe blocks once the pipe is full — a log shipper that stalls, `serve 2>&1 | less` left at a
/// page — and the loop blocked in it would stop serving every connection. Here `write` only
/// queues the line, and the writer thread makes the system calls, many lines at a time.
///
/// Bounded: at most `capacity` lines wait. Past that a line is dropped and counted, never
/// waited for, and the writer says how many were dropped in a line of its own when it can write
/// again (`{"log_lines_dropped":N}`). A line is rendered (`write`'s closure runs) on the writer
/// thread, so building the text costs the caller nothing either.
///
/// What is written is lost only when the process is killed before `finish` (SIGKILL, a crash);
/// `finish` writes what waits, within a deadline.
package final class LogLineWriter: Sendable {
    private let descriptor: Int32
    private let capacity: Int
    private let condition = NSCondition()
    // Guarded by `condition`.
    private nonisolated(unsafe) var waiting: [@Sendable () -> String] = []
    /// Dropped since the last notice, and in all.
    private nonisolated(unsafe) var dropped = 0
    private nonisolated(unsafe) var droppedInAll = 0
    private nonisolated(unsafe) var finishing = false
    private nonisolated(unsafe) var stopped = false

    /// A writer to `descriptor` (not closed here) holding at most `capacity` waiting lines,
    /// whose thread `top -H` and `perf` show as `name`.
    package init(descriptor: Int32 = STDERR_FILENO, capacity: Int = 10_000, name: String = "log-writer") {
        precondition(capacity > 0, "a log writer holds at least one line")
        self.descriptor = descriptor
        self.capacity = capacity
        let thread = Thread { [self] in
            OwnThread.markCurrent(named: name)
            run()
        }
        thread.name = name
        thread.start()
    }

    /// Queues `line` (without its newline) and returns at once; drops it when `capacity`
    /// lines already wait or the writer has finished.
    package func write(_ line: @escaping @Sendable @autoclosure () -> String) {
        condition.lock()
        defer { condition.unlock() }
        guard !finishing, waiting.count < capacity else {
            dropped += 1
            droppedInAll += 1
            return
        }
        waiting.append(line)
        if waiting.count == 1 { condition.signal() }
    }

    /// Lines dropped so far, in all.
    package var droppedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return droppedInAll
    }

    /// Writes what waits and stops the thread; returns when that is done or `deadline` has
    /// passed (a reader that never reads cannot hold the process's exit). Later lines are
    /// dropped. Blocks the caller: call it once, at exit.
    package func finish(within deadline: Duration = .seconds(2)) {
        BlockingWait.announce("log writer finishing at exit")
        let until = Date(timeIntervalSinceNow: deadline.timeInterval)
        condition.lock()
        defer { condition.unlock() }
        finishing = true
        condition.broadcast()
        while !stopped, condition.wait(until: until) {}
    }

    private func run() {
        while let (lines, droppedBefore) = nextBatch() {
            var chunk = ""
            if droppedBefore > 0 { chunk += "{\"log_lines_dropped\":\(droppedBefore)}\n" }
            for line in lines {
                let text = line() + "\n"
                // Each write(2) holds whole lines and at most PIPE_BUF bytes (a longer line goes
                // alone), which a pipe writes at once: another thread's line to the same
                // descriptor lands between two of ours, never inside one.
                if !chunk.isEmpty, chunk.utf8.count + text.utf8.count > Int(PIPE_BUF) {
                    writeFully(chunk)
                    chunk = ""
                }
                chunk += text
            }
            if !chunk.isEmpty { writeFully(chunk) }
        }
    }

    /// The lines waiting and the count dropped since the last batch; nil once finishing and
    /// nothing is left, after marking the writer stopped.
    private func nextBatch() -> (lines: [@Sendable () -> String], dropped: Int)? {
        BlockingWait.announce("log writer waiting for lines")
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty && dropped == 0 {
            if finishing {
                stopped = true
                condition.broadcast()
                return nil
            }
            condition.wait()
        }
        let batch = (waiting, dropped)
        waiting = []
        dropped = 0
        return batch
    }

    /// Every byte of `text` out (`POSIX.writeAll`); a failure is dropped (a closed descriptor:
    /// nobody reads the log any more, and there is nowhere to say so).
    private func writeFully(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = POSIX.writeAll(UnsafeRawBufferPointer(bytes), to: descriptor) }
    }
}
