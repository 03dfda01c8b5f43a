import TestSupport
import PayPanelHTTP
import Testing

/// Connection reuse against a real server: keep-alive, pipelining, `Connection: close`,
/// HTTP/1.0, `100 Continue`, chunked bodies, and the framing headers the server owns.
@Suite struct KeepAliveTests {
    @Test func servesTwoRequestsOnOneConnection() async throws {
        try await withServer { server in
            let port = server.port
            let (first, second) = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send(get("/one"))
                let first = try client.readResponse()
                try client.send("POST /two HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nbody")
                return (first, try client.readResponse())
            }
            #expect(first.status == 200)
            #expect(first.text == "GET /one ")
            #expect(first.headers["Connection"] == nil)
            #expect(first.headers["Content-Length"] == "9")
            #expect(second.text == "POST /two body")
        }
    }

    @Test func answersPipelinedRequestsInOrder() async throws {
        // The first request is the slowest; its answer must still come first.
        let handler: HTTPServer.Handler = { request in
            // sleep is the test: the first answer is ready last, and must still be sent first.
            if request.target.path == "/slow" { try? await Task.sleep(for: .milliseconds(100)) }
            return .text(request.target.path)
        }
        try await withServer(handler: handler) { server in
            let port = server.port
            let paths = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send(get("/slow") + "POST /b HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nx" + get("/c"))
                return try (0..<3).map { _ in try client.readResponse().text }
            }
            #expect(paths == ["/slow", "/b", "/c"])
        }
    }

    @Test func honoursConnectionClose() async throws {
        try await withServer { server in
            let port = server.port
            let (response, closed) = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send(get("/", "Connection: close\r\n"))
                return (try client.readResponse(), try client.waitForClose())
            }
            #expect(response.status == 200)
            #expect(response.headers["Connection"] == "close")
            #expect(closed)
        }
    }

    @Test func closesHTTP10UnlessAskedToKeepAlive() async throws {
        try await withServer { server in
            let port = server.port
            let (closing, closed, kept, second) = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send("GET /a HTTP/1.0\r\n\r\n")
                let closing = try client.readResponse()
                let closed = try client.waitForClose()
                let keeper = try RawClient.connect(to: port)
                try keeper.send("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                let kept = try keeper.readResponse()
                try keeper.send("GET /c HTTP/1.0\r\n\r\n")
                return (closing, closed, kept, try keeper.readResponse())
            }
            #expect(closing.headers["Connection"] == "close")
            #expect(closed)
            #expect(kept.headers["Connection"] == "keep-alive")
            #expect(second.text == "GET /c ")
        }
    }

    @Test func sendsContinueBeforeReadingTheBody() async throws {
        try await withServer { server in
            let port = server.port
            let (interim, final) = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send("PUT /up HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
                let interim = try client.readResponse()
                try client.send("hello")
                return (interim, try client.readResponse())
            }
            #expect(interim.status == 100)
            #expect(final.text == "PUT /up hello")
        }
    }

    @Test func decodesChunkedBodies() async throws {
        try await withServer { server in
            let port = server.port
            let response = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send("POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nchun\r\n3\r\nked\r\n0\r\nX-Trailer: t\r\n\r\n")
                try client.send(get("/after"))
                return [try client.readResponse().text, try client.readResponse().text]
            }
            #expect(response == ["POST /c chunked", "GET /after "])
        }
    }

    @Test func ownsTheFramingHeaders() async throws {
        let handler: HTTPServer.Handler = { _ in
            HTTPResponse(status: .ok, headers: ["Content-Length": "999", "Transfer-Encoding": "chunked", "X-Kept": "yes"], body: Array("abc".utf8))
        }
        try await withServer(handler: handler) { server in
            let port = server.port
            let response = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send(get("/"))
                return try client.readResponse()
            }
            #expect(response.headers.values(for: "Content-Length") == ["3"])
            #expect(response.headers["Transfer-Encoding"] == nil)
            #expect(response.headers["X-Kept"] == "yes")
            #expect(response.text == "abc")
        }
    }

    @Test func replacesAResponseThatWouldSplitWithA500() async throws {
        let events = Recorder<HTTPServerEvent>()
        var configuration = HTTPServer.Configuration()
        configuration.eventLog = { events.record($0) }
        let handler: HTTPServer.Handler = { _ in
            HTTPResponse(status: .ok, headers: ["X-Echo": "a\r\nSet-Cookie: stolen=1"], body: [])
        }
        try await withServer(configuration, handler: handler) { server in
            let port = server.port
            let response = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send(get("/"))
                return try client.readResponse()
            }
            #expect(response.status == 500)
            #expect(response.headers["Set-Cookie"] == nil)
            #expect(events.all.map(\.kind) == [.invalidResponse])
        }
    }

    @Test func omitsContentLengthOnNoContent() async throws {
        try await withServer(handler: { _ in HTTPResponse(status: .noContent, body: Array("dropped".utf8)) }) { server in
            let port = server.port
            let (first, second) = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send(get("/a") + get("/b"))
                return (try client.readResponse(), try client.readResponse())
            }
            #expect(first.status == 204)
            #expect(first.headers["Content-Length"] == nil)
            #expect(first.body.isEmpty)
            #expect(second.status == 204)
        }
    }

    @Test func givesHandlersTheRemoteAddressAndLogsEachRequestOnce() async throws {
        let entries = Recorder<HTTPAccessLogEntry>()
        var configuration = HTTPServer.Configuration()
        configuration.accessLog = { entries.record($0) }
        let handler: HTTPServer.Handler = { request in
            .text("\(request.remoteAddress?.host ?? "-") \(request.id)")
        }
        try await withServer(configuration, handler: handler) { server in
            let port = server.port
            let responses = try await onThread {
                let client = try RawClient.connect(to: port)
                try client.send(get("/v1/items?card=4111111111111111") + get("/v1/other"))
                return [try client.readResponse().text, try client.readResponse().text]
            }
            let logged = entries.all
            #expect(logged.count == 2)
            #expect(logged.map(\.path) == ["/v1/items", "/v1/other"])
            #expect(logged.map(\.method) == [.get, .get])
            #expect(logged.allSatisfy { $0.status == .ok })
            #expect(responses.map { $0.split(separator: " ")[0] } == ["127.0.0.1", "127.0.0.1"])
            #expect(responses.map { String($0.split(separator: " ")[1]) } == logged.map(\.requestID))
            // The query (with its card number) is not logged. Not a search for "4111": a random
            // request id can hold those four digits.
            #expect(logged.allSatisfy { !$0.description.contains("4111111111111111") && !$0.description.contains("card=") })
        }
    }

    @Test func listensOnIPv6Loopback() async throws {
        guard let server = try? HTTPServer.start(configuration: .init(host: "::1", port: 0), handler: echo) else {
            return  // no IPv6 on this machine
        }
        let port = server.port
        let response = try await onThread {
            let client = try RawClient.connect(to: port, host: "::1")
            try client.send(get("/six"))
            return try client.readResponse()
        }
        await server.shutdown(grace: .seconds(1))
        #expect(response.text == "GET /six ")
        #expect(server.localAddress.description == "[::1]:\(port)")
    }
}
