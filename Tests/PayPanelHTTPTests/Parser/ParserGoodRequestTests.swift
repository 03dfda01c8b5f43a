import PayPanelHTTP
import Testing

/// Well-formed requests, fed whole, cut at every possible point, and byte by byte: the parser
/// must report the same head, body and end each time.
@Suite struct ParserGoodRequestTests {
    @Test func getWithHeadersParsesTheSameAtEverySplit() throws {
        let text = "GET /v1/checkouts/ab%20c/pay?expand=items&x=%2B1 HTTP/1.1\r\nHost: example.com\r\nAccept:  */* \r\nX-Empty:\r\n\r\n"
        for chunks in everySplit(of: text) {
            let outcome = parse(chunks: chunks)
            #expect(outcome.error == nil)
            try #require(outcome.requests.count == 1)
            let request = outcome.requests[0]
            #expect(request.ended)
            #expect(request.body.isEmpty)
            #expect(request.head.method == .get)
            #expect(request.head.version == .http1_1)
            #expect(request.head.target.path == "/v1/checkouts/ab%20c/pay")
            #expect(request.head.target.pathSegments == ["v1", "checkouts", "ab c", "pay"])
            #expect(request.head.target.queryItems == [QueryItem(name: "expand", value: "items"), QueryItem(name: "x", value: "+1")])
            #expect(request.head.headers["accept"] == "*/*")
            #expect(request.head.headers["X-EMPTY"] == "")
            #expect(request.head.framing == .none)
            #expect(request.head.keepAlive)
        }
    }

    @Test func postWithContentLengthParsesTheSameAtEverySplit() throws {
        let text = "POST /v1/pay HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world"
        for chunks in everySplit(of: text) {
            let outcome = parse(chunks: chunks)
            #expect(outcome.error == nil)
            try #require(outcome.requests.count == 1)
            #expect(outcome.requests[0].head.framing == .contentLength(11))
            #expect(outcome.requests[0].body == Array("hello world".utf8))
            #expect(outcome.requests[0].ended)
        }
    }

    @Test func chunkedBodyWithExtensionsAndTrailersDecodesAtEverySplit() throws {
        let text = "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value;flag\r\nhello\r\n"
            + "6 ; q=\"a \\\"b\\\"\"\r\n world\r\n"
            + "000\r\nX-Checksum: abc\r\n\r\n"
        for chunks in everySplit(of: text) {
            let outcome = parse(chunks: chunks)
            #expect(outcome.error == nil)
            try #require(outcome.requests.count == 1)
            #expect(outcome.requests[0].head.framing == .chunked)
            #expect(outcome.requests[0].body == Array("hello world".utf8))
            #expect(outcome.requests[0].ended)
        }
    }

    @Test func pipelinedPairParsesAsTwoRequestsAtEverySplit() throws {
        let text = "POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
            + "GET /b HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
        for chunks in everySplit(of: text) {
            let outcome = parse(chunks: chunks)
            #expect(outcome.error == nil)
            try #require(outcome.requests.count == 2)
            #expect(outcome.requests[0].head.target.path == "/a")
            #expect(outcome.requests[0].body == Array("abc".utf8))
            #expect(outcome.requests[1].head.target.path == "/b")
            #expect(outcome.requests[1].head.keepAlive == false)
            #expect(outcome.requests.allSatisfy { $0.ended })
        }
    }

    @Test func pipelinedChunkedThenGetParsesAtEverySplit() throws {
        let text = "POST /a HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
            + "GET /b HTTP/1.1\r\nHost: a\r\n\r\n"
        for chunks in everySplit(of: text) {
            let outcome = parse(chunks: chunks)
            #expect(outcome.error == nil)
            #expect(outcome.requests.map(\.head.target.path) == ["/a", "/b"])
            #expect(outcome.requests.first?.body == Array("abc".utf8))
        }
    }

    @Test func http10ClosesUnlessKeepAliveAndNeedsNoHost() throws {
        let close = parse(chunks: [Array("GET / HTTP/1.0\r\n\r\n".utf8)[...]])
        #expect(close.requests.first?.head.keepAlive == false)
        #expect(close.requests.first?.head.target.pathSegments == [])
        let keep = parse(chunks: [Array("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n".utf8)[...]])
        #expect(keep.requests.first?.head.keepAlive == true)
    }

    @Test func absoluteFormIsAcceptedAndRoutedByItsPath() throws {
        // RFC 9112 §3.2.2: a server must accept the absolute-form; routing sees only the path.
        for chunks in everySplit(of: "POST HTTP://Example.com:8080/v1/a%20b?x=1 HTTP/1.1\r\nHost: example.com:8080\r\nContent-Length: 2\r\n\r\nhi") {
            let outcome = parse(chunks: chunks)
            #expect(outcome.error == nil)
            let target = try #require(outcome.requests.first?.head.target)
            #expect(target.authority == "Example.com:8080")
            #expect(target.path == "/v1/a%20b" && target.pathSegments == ["v1", "a b"])
            #expect(target.queryItems == [QueryItem(name: "x", value: "1")])
            #expect(outcome.requests.first?.body == Array("hi".utf8))
        }
        let bare = try RequestTarget(parsing: "https://[::1]:443")
        #expect(bare.authority == "[::1]:443" && bare.path == "/" && bare.pathSegments == [])
        #expect(try RequestTarget(parsing: "http://a?q=1").queryItems == [QueryItem(name: "q", value: "1")])
    }

    @Test func laterHTTP1MinorVersionsAreServedAs11() throws {
        // RFC 9110 §6.2: a higher minor version is handled as the highest one the server speaks.
        for version in ["HTTP/1.2", "HTTP/1.9"] {
            let outcome = parse(chunks: [Array("GET / \(version)\r\nHost: a\r\n\r\n".utf8)[...]])
            #expect(outcome.error == nil, "\(version)")
            #expect(outcome.requests.first?.head.version == .http1_1, "\(version)")
            #expect(outcome.requests.first?.head.keepAlive == true, "\(version)")
        }
    }

    @Test func aTargetExactlyAtItsLimitIsAccepted() throws {
        let target = "/" + String(repeating: "a", count: 63)
        let outcome = parse(chunks: [Array("GET \(target) HTTP/1.1\r\nHost: a\r\n\r\n".utf8)[...]], limits: .init(maxTargetBytes: 64))
        #expect(outcome.error == nil)
        #expect(outcome.requests.first?.head.target.path == target)
    }

    @Test func leadingEmptyLinesAreIgnored() throws {
        let outcome = parse(chunks: [Array("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)[...]])
        #expect(outcome.error == nil)
        #expect(outcome.requests.count == 1)
    }

    @Test func expectContinueIsReportedOnlyWithABody() throws {
        let withBody = parse(chunks: [Array("PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\nx".utf8)[...]])
        #expect(withBody.requests.first?.head.expectsContinue == true)
        let without = parse(chunks: [Array("GET / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n".utf8)[...]])
        #expect(without.requests.first?.head.expectsContinue == false)
    }

    @Test func headExactlyAtTheLimitIsAccepted() throws {
        let base = "GET / HTTP/1.1\r\nHost: a\r\nX: \r\n\r\n"
        let padding = String(repeating: "p", count: 64 - base.utf8.count)
        let text = "GET / HTTP/1.1\r\nHost: a\r\nX: \(padding)\r\n\r\n"
        #expect(text.utf8.count == 64)
        let outcome = parse(chunks: [Array(text.utf8)[...]], limits: .init(maxHeadBytes: 64))
        #expect(outcome.error == nil)
        #expect(outcome.requests.count == 1)
    }

    @Test func bodyExactlyAtTheLimitIsAccepted() throws {
        let outcome = parse(chunks: [Array("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nabcd".utf8)[...]], limits: .init(maxBodyBytes: 4))
        #expect(outcome.error == nil)
        let chunked = parse(
            chunks: [Array("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n2\r\ncd\r\n0\r\n\r\n".utf8)[...]],
            limits: .init(maxBodyBytes: 4))
        #expect(chunked.error == nil)
        #expect(chunked.requests.first?.body == Array("abcd".utf8))
    }

    @Test func parserWaitsForThePipelinedRequestUntilAsked() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        guard case .head(let first) = try parser.nextEvent() else { Issue.record("no head"); return }
        #expect(first.target.path == "/a")
        #expect(try parser.nextEvent() == .end)
        // The second request is still buffered, untouched, until the owner asks for it.
        #expect(parser.bufferedByteCount == "GET /b HTTP/1.1\r\nHost: a\r\n\r\n".utf8.count)
        guard case .head(let second) = try parser.nextEvent() else { Issue.record("no second head"); return }
        #expect(second.target.path == "/b")
    }
}
