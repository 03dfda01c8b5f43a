import Foundation
import Glibc
@testable import PayPanelHTTP
import Synchronization
import Testing
import TestSupport

/// `LogLineWriter`: whoever logs never waits for whoever reads the log. The writer writes into a
/// real pipe here, read by the test or, on purpose, by nobody. Every blocking read and wait runs
/// on a thread of its own (`onThread`), never on the cooperative pool the parallel tests share.
@Suite struct LogLineWriterTests {
    /// A writer of `capacity` lines into a new pipe (whose read end the test closes). The
    /// pipe's FIFO is unlinked once open: its directory is not needed after.
    static func writerOnPipe(capacity: Int) throws -> (ClosingPipe, LogLineWriter) {
        let pipe = try ClosingPipe(in: try TemporaryDirectory("paypanel-log-writer"))
        return (pipe, LogLineWriter(descriptor: pipe.writeEnd, capacity: capacity, name: "test-log"))
    }

    /// Reads the pipe while the writer finishes, then closes the write end: everything written.
    /// (The read end is closed after the write end: no SIGPIPE in this process.)
    static func finishReading(_ writer: LogLineWriter, _ pipe: ClosingPipe) async throws -> String {
        let text = StartedThread { pipe.readToEnd() }
        try await onThread { writer.finish(within: .seconds(30)) }
        close(pipe.writeEnd)
        return try await text.value()
    }

    @Test("Lines reach the descriptor whole and in order, a line longer than a pipe's atomic write too")
    func linesArriveWholeAndInOrder() async throws {
        let (pipe, writer) = try Self.writerOnPipe(capacity: 100_000)
        defer { close(pipe.readEnd) }
        let long = String(repeating: "x", count: 10_000)
        let expected = (0..<5_000).map { $0 == 2_500 ? long : "line \($0)" }
        for line in expected { writer.write(line) }
        let lines = try await Self.finishReading(writer, pipe).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines == expected + [""])
        #expect(writer.droppedCount == 0)
    }

    @Test("A reader that stops reading never blocks the writer: lines past the bound are dropped, counted, and reported once it reads again")
    func aStalledReaderNeverBlocksTheCaller() async throws {
        let (pipe, writer) = try Self.writerOnPipe(capacity: 1_000)
        defer { close(pipe.readEnd) }
        // 20,000 lines of about 100 bytes: the pipe (64 KiB) and the bound are full long before
        // the end. Were `write` to wait for the reader, it would wait forever; the watchdog reads
        // after 20 s so the test ends, and says that it had to.
        let finished = Flag()
        let watchdogRead = Flag()
        let watchdog = Thread {
            let deadline = Date(timeIntervalSinceNow: 20)
            while !finished.isSet, Date() < deadline { usleep(10_000) }
            if !finished.isSet {
                watchdogRead.set()
                _ = pipe.readToEnd()
            }
        }
        watchdog.start()
        let padding = String(repeating: "p", count: 90)
        for index in 0..<20_000 { writer.write("line \(index) \(padding)") }
        finished.set()
        #expect(!watchdogRead.isSet, "write waited for the reader")
        let dropped = writer.droppedCount
        #expect(dropped > 0)

        // The reader comes back: what was kept arrives whole and in order, with the count.
        let lines = try await Self.finishReading(writer, pipe).split(separator: "\n").map(String.init)
        let reported = lines.compactMap { line -> Int? in
            guard line.hasPrefix(#"{"log_lines_dropped":"#) else { return nil }
            return Int(line.dropFirst(#"{"log_lines_dropped":"#.count).dropLast())
        }
        #expect(reported.reduce(0, +) == dropped)
        let kept = lines.filter { $0.hasPrefix("line ") }
        #expect(kept.count + dropped == 20_000)
        let numbers = kept.map { Int($0.split(separator: " ")[1])! }
        #expect(numbers == numbers.sorted() && Set(numbers).count == numbers.count)
        #expect(kept.allSatisfy { $0.hasSuffix(padding) })
    }

    @Test("finish returns by its deadline even when nobody reads")
    func finishHasADeadline() async throws {
        let (pipe, writer) = try Self.writerOnPipe(capacity: 10_000)
        defer { close(pipe.readEnd) }
        let line = String(repeating: "z", count: 1_000)
        for _ in 0..<500 { writer.write(line) }  // 500 KB: far more than the pipe holds
        let waited = try await onThread {
            let start = ContinuousClock.now
            writer.finish(within: .milliseconds(300))
            return ContinuousClock.now - start
        }
        #expect(waited < .seconds(10))
        // Read it all, so the writer's thread ends instead of waiting in write(2) for ever.
        #expect(try await Self.finishReading(writer, pipe).split(separator: "\n").count == 500)
    }

    /// A flag two threads share.
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
        func set() { value.store(true, ordering: .releasing) }
    }
}
