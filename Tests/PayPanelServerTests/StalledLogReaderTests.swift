import Foundation
import Glibc
import PayPanelReliability
import Testing
import TestSupport

/// A server whose standard error nobody reads (a stalled log shipper, `serve 2>&1 | less` left
/// at a page) keeps answering. Both servers log one access-log line per request from their
/// event-loop thread; written there directly, the line that found the pipe full stopped the loop,
/// and every connection with it. Each server command is run with its standard error on a pipe
/// the test does not read until the requests are done.
@Suite struct StalledLogReaderTests {
    /// Every server command that writes an access log, with the source file that sets it (which
    /// `everyLogSetInSourcesIsQueued` finds), and its arguments in `directory`.
    static let commandFiles = ["serve": "paypanel/Commands/Serve/ServeCommand.swift", "processor serve": "paypanel/Commands/Processor/ProcessorServeCommand.swift"]
    static let commands = commandFiles.keys.sorted()

    static func arguments(_ command: String, in directory: TemporaryDirectory) -> [String] {
        switch command {
        case "serve": ["serve", "--port", "0", "--db", directory.file("payments.sqlite"), "--processor-db", directory.file("processor.sqlite")]
        default: ["processor", "serve", "--port", "0", "--processor-db", directory.file("processor.sqlite")]
        }
    }

    /// 1,500 logged requests of about 150 bytes each: over three times what a pipe holds
    /// (64 KiB), and below the 10,000 lines the log writer keeps, so none is dropped.
    static let requests = 1_500

    @Test("A server keeps answering while nobody reads its log, and the log is whole once read", arguments: commands)
    func keepsAnsweringWithAStalledLogReader(command: String) async throws {
        let directory = try TemporaryDirectory("paypanel-stalled-log")
        // The write end reaches this server as its standard error (dup2 clears close-on-exec
        // there) and no other test's child, which would hold the pipe open.
        let pipe = try ClosingPipe(in: directory)
        let (readEnd, writeEnd) = (pipe.readEnd, pipe.writeEnd)
        defer { close(readEnd) }
        let arguments = Self.arguments(command, in: directory)
        let server: ListeningProcess
        do {
            server = try await onThread {
                try ListeningProcess.paypanelNow(arguments, name: "stalled-log", directory: directory, stderr: .descriptor(writeEnd))
            }
        } catch {
            close(writeEnd)
            throw error
        }
        close(writeEnd)

        // One keep-alive connection, one request after another; the client gives up on a
        // response after 10 s, so a stopped loop fails the test instead of hanging it.
        let port = server.port
        let answered = try await onThread {
            let client = try RawClient.connect(to: port, timeout: 10)
            var answered = 0
            for _ in 0..<Self.requests {
                try client.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                _ = try client.readResponse()
                answered += 1
            }
            return answered
        }
        #expect(answered == Self.requests)

        // The reader comes back: every request's line is there, and the server stops cleanly
        // (it writes out what waits before it exits, for 2 s at most: the reader's thread is
        // started before the server is told to stop, not whenever a task gets scheduled).
        let log = StartedThread { pipe.readToEnd() }
        #expect(try await onThread { server.stop(within: .seconds(30)) } == 0)
        let lines = try await log.value().split(separator: "\n")
        #expect(lines.filter { $0.contains(#""request_id""#) }.count == Self.requests)
        #expect(!lines.contains { $0.contains("log_lines_dropped") })
    }

    @Test("Every access or event log a command sets queues its line, and each such command is run above")
    func everyLogSetInSourcesIsQueued() throws {
        let sources = RepositoryPaths.root.appending(path: "Sources")
        let files = FileManager.default.enumerator(atPath: sources.path(percentEncoded: false))?
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        var setters: [(file: String, line: String)] = []
        for file in files {
            let text = try String(contentsOf: sources.appending(path: file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.contains(/\.(accessLog|eventLog) = \{/) {
                setters.append((file, String(line)))
            }
        }
        #expect(!setters.isEmpty, "no access log is set anywhere: the search is broken")
        for setter in setters {
            #expect(setter.line.contains("writeError("), "\(setter.file) writes a log line on the event loop without queuing it: \(setter.line)")
        }
        #expect(Set(setters.map(\.file)) == Set(Self.commandFiles.values),
                "a server command sets a log that keepsAnsweringWithAStalledLogReader does not run: \(setters.map(\.file))")
    }
}
