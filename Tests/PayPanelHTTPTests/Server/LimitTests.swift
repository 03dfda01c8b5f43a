import TestSupport
import PayPanelHTTP
import Testing

/// Each limit against a real server: its status, its reason in the body, the event it logs,
/// and the connection closed after it. Timeouts are shrunk to a few hundred milliseconds;
/// each test only relies on the server acting well before the client would have finished.
@Suite struct LimitTests {
    /// A configuration whose refusals are recorded.
    private static func recorded(_ adjust: (inout HTTPServer.Configuration) -> Void = { _ in }) -> (HTTPServer.Configuration, Recorder<HTTPServerEvent>, Recorder<HTTPAccessLogEntry>) {
        let events = Recorder<HTTPServerEvent>()
        let entries = Recorder<HTTPAccessLogEntry>()
        var configuration = HTTPServer.Configuration()
        configuration.eventLog = { events.record($0) }
        configuration.accessLog = { entries.record($0) }
        adjust(&configuration)
        return (configuration, events, entries)
    }

    /// Sends `request`, reads the refusal, and checks the server then closes.
    private static func refusal(of request: String, port: Int) async throws -> (WireResponse, closed: Bool) {
        try await onThread {
            let client = try RawClient.connect(to: port)
            try client.send(request)
            return (try client.readResponse(), try client.waitForClose())
        }
    }

    @Test func headersOver16KiBGet431() async throws {
        let (configuration, events, entries) = Self.recorded()
        try await withServer(configuration) { server in
            let request = "GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + String(repeating: "a", count: 20 * 1024) + "\r\n\r\n"
            let (response, closed) = try await Self.refusal(of: request, port: server.port)
            #expect(response.status == 431)
            #expect(response.text.contains("longer than 16384 bytes"))
            #expect(response.headers["Connection"] == "close")
            #expect(closed)
            #expect(events.all.map(\.kind) == [.requestRefused(.requestHeaderFieldsTooLarge)])
            #expect(entries.all.map(\.status.code) == [431])
            // The request line was complete, so the log names it even though the head was refused.
            #expect(entries.all.first?.method == .get)
            #expect(entries.all.first?.path == "/")
        }
    }

    @Test func bodyOverTheLimitGets413BeforeAnyBodyIsSent() async throws {
        let (configuration, events, entries) = Self.recorded { $0.limits.maxBodyBytes = 1024 * 1024 }
        try await withServer(configuration) { server in
            // Only the head is sent: the refusal must come from Content-Length alone.
            let (response, closed) = try await Self.refusal(
                of: "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n", port: server.port)
            #expect(response.status == 413)
            #expect(response.text.contains("larger than 1048576 bytes"))
            #expect(closed)
            #expect(events.all.map(\.kind) == [.requestRefused(.contentTooLarge)])
            #expect(entries.all.map { "\($0.method?.rawValue ?? "-") \($0.path ?? "-") \($0.status.code)" } == ["POST /up 413"])
        }
    }

    @Test func bodyOverTheLimitSentWholeStillGetsItsAnswer() async throws {
        // A client that sends its whole body before reading: the lingering close lets it read
        // the 413 instead of a reset.
        var configuration = HTTPServer.Configuration()
        configuration.limits.maxBodyBytes = 1000
        try await withServer(configuration) { server in
            let port = server.port
            let response = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 200000\r\n\r\n" + String(repeating: "x", count: 200_000))
                return try client.readResponse()
            }
            #expect(response.status == 413)
        }
    }

    @Test func chunkedBodyOverTheLimitGets413() async throws {
        let (configuration, _, _) = Self.recorded { $0.limits.maxBodyBytes = 10 }
        try await withServer(configuration) { server in
            let (response, closed) = try await Self.refusal(
                of: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n", port: server.port)
            #expect(response.status == 413)
            #expect(response.text.contains("chunked body is larger than 10 bytes"))
            #expect(closed)
        }
    }

    @Test func slowDrippedHeadersGet408() async throws {
        let (configuration, events, _) = Self.recorded { $0.headTimeout = .milliseconds(300) }
        try await withServer(configuration) { server in
            let port = server.port
            let request = get("/drip", "X-Padding: 0123456789\r\n")
            let (sent, response, closed) = try await onThread {
                let client = try RawClient.connect(to: port)
                // One byte every 50 ms: each byte arrives long before any per-byte timeout
                // would fire, but the whole head would take over 2 s.
                let sent = try client.drip(request, interval: .milliseconds(50))
                return (sent, try client.readResponse(), try client.waitForClose())
            }
            #expect(response.status == 408)
            #expect(response.text.contains("did not arrive within 300 ms"))
            #expect(closed)
            #expect(sent < request.utf8.count)
            #expect(events.all.map(\.kind) == [.requestRefused(.requestTimeout)])
        }
    }

    @Test func slowBodyGets408() async throws {
        let (configuration, _, entries) = Self.recorded { $0.bodyTimeout = .milliseconds(300) }
        try await withServer(configuration) { server in
            let port = server.port
            let (sent, response) = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send("POST /slow HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n")
                let sent = try client.drip(String(repeating: "b", count: 100), interval: .milliseconds(50))
                return (sent, try client.readResponse())
            }
            #expect(response.status == 408)
            #expect(response.text.contains("request body did not arrive within 300 ms"))
            #expect(sent < 100)
            // The head was read, so the log knows what was refused.
            #expect(entries.all.first?.method == .post)
            #expect(entries.all.first?.path == "/slow")
        }
    }

    @Test func idleKeepAliveConnectionIsClosed() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.idleTimeout = .milliseconds(200)
        try await withServer(configuration) { server in
            let port = server.port
            let (response, closed) = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send(get("/"))
                return (try client.readResponse(), try client.waitForClose())
            }
            #expect(response.status == 200)
            #expect(closed)
            #expect(await eventually { server.openConnectionCount == 0 })
        }
    }

    @Test func connectionBeyondTheMaximumGets503() async throws {
        let (configuration, events, _) = Self.recorded { $0.maxConnections = 2 }
        try await withServer(configuration) { server in
            let port = server.port
            let (refused, closed, stillServed) = try await onThread {
                // A request on each proves both were accepted before the third arrives.
                let first = try RawClient.connect(to: port)
                let second = try RawClient.connect(to: port)
                for client in [first, second] {
                    try client.send(get("/"))
                    _ = try client.readResponse()
                }
                let third = try RawClient.connect(to: port)
                let refused = try third.readResponse()
                let closed = try third.waitForClose()
                try first.send(get("/again"))
                return (refused, closed, try first.readResponse())
            }
            #expect(refused.status == 503)
            #expect(refused.headers["Retry-After"] == "1")
            #expect(refused.headers["Connection"] == "close")
            #expect(refused.text.contains("too many open connections"))
            #expect(closed)
            #expect(stillServed.text == "GET /again ")
            #expect(events.all.map(\.kind) == [.connectionRefused])
        }
    }

    static let malformed: [(request: String, status: Int, reason: String)] = [
        ("GET / HTTP/1.1\nHost: a\n\n", 400, "CR LF"),
        ("GET / HTTP/1.1\r\n\r\n", 400, "Host header"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc", 400, "both Transfer-Encoding and Content-Length"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc", 400, "more than one Content-Length"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n", 400, "decimal number"),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501, "only the chunked"),
        ("GET /a%zz HTTP/1.1\r\nHost: a\r\n\r\n", 400, "two hexadecimal digits"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n folded\r\n\r\n", 400, "line folding"),
        ("GET / HTTP/3.0\r\nHost: a\r\n\r\n", 505, "HTTP/1.0 and HTTP/1.1"),
    ]

    @Test(arguments: 0..<malformed.count)
    func malformedRequestsGetTheirStatusAndReasonThenClose(_ index: Int) async throws {
        let (request, status, reason) = Self.malformed[index]
        try await withServer { server in
            let (response, closed) = try await Self.refusal(of: request, port: server.port)
            #expect(response.status == status)
            #expect(response.text.contains(reason))
            #expect(response.headers["Connection"] == "close")
            #expect(closed)
        }
    }

    @Test func anErrorAfterAGoodRequestStillAnswersTheGoodOneFirst() async throws {
        try await withServer { server in
            let port = server.port
            let (good, bad, closed) = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send(get("/fine") + "BAD REQUEST LINE HERE\r\n\r\n")
                return (try client.readResponse(), try client.readResponse(), try client.waitForClose())
            }
            #expect(good.text == "GET /fine ")
            #expect(bad.status == 400)
            #expect(closed)
        }
    }

    @Test func aCustomRejectionResponseKeepsStatusAndFraming() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.rejectionResponse = { status, reason in
            .json(Array("{\"error\":{\"status\":\(status.code),\"reason\":\"\(reason)\"}}".utf8), status: status)
        }
        try await withServer(configuration) { server in
            let (response, _) = try await Self.refusal(of: "GET / HTTP/1.1\r\n\r\n", port: server.port)
            #expect(response.status == 400)
            #expect(response.headers["Content-Type"] == "application/json")
            #expect(response.text.hasPrefix("{\"error\":{\"status\":400"))
        }
    }
}
