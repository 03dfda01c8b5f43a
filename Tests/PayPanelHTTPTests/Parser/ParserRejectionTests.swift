import PayPanelHTTP
import Testing

/// A malformed or over-limit request, the status the parser must refuse it with, and a part of
/// the reason it must give.
struct Rejection: CustomTestStringConvertible, Sendable {
    let name: String
    let text: String
    let status: Int
    let reason: String
    var limits = HTTPRequestParser.Limits()

    var testDescription: String { name }
}

/// Each malformed case, fed whole, at every split and byte by byte: always the same refusal,
/// and never a head for a request the parser refused.
@Suite struct ParserRejectionTests {
    static let host = "Host: a\r\n"

    static let cases: [Rejection] = [
        // Request line.
        Rejection(name: "lowercase version", text: "GET / http/1.1\r\n\r\n", status: 400, reason: "HTTP version"),
        Rejection(name: "HTTP/2.0", text: "GET / HTTP/2.0\r\n\r\n", status: 505, reason: "only HTTP/1.0 and HTTP/1.1"),
        Rejection(name: "two spaces", text: "GET  / HTTP/1.1\r\n\r\n", status: 400, reason: "extra space"),
        Rejection(name: "missing version", text: "GET /\r\n\r\n", status: 400, reason: "the request line must be"),
        Rejection(name: "trailing space", text: "GET / HTTP/1.1 \r\n\r\n", status: 400, reason: "extra space"),
        Rejection(name: "method not a token", text: "G(T / HTTP/1.1\r\n\r\n", status: 400, reason: "the method contains the byte 0x28"),
        Rejection(name: "asterisk-form", text: "OPTIONS * HTTP/1.1\r\n\r\n", status: 400, reason: "origin-form"),
        Rejection(name: "absolute-form without host", text: "GET http:///a HTTP/1.1\r\n\(host)\r\n", status: 400, reason: "no host"),
        Rejection(name: "absolute-form with user", text: "GET http://u@a/ HTTP/1.1\r\n\(host)\r\n", status: 400, reason: "user information"),
        Rejection(name: "other scheme", text: "GET ftp://a/ HTTP/1.1\r\n\(host)\r\n", status: 400, reason: "origin-form"),
        Rejection(name: "chunk extensions over their budget",
                  text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n" + String(repeating: "1;\(String(repeating: "e", count: 30))\r\nx\r\n", count: 3),
                  status: 400, reason: "chunk extensions of this request total more than 64 bytes", limits: .init(maxChunkExtensionBytes: 64)),
        Rejection(name: "HTTP/0.9", text: "GET / HTTP/0.9\r\n\r\n", status: 505, reason: "only HTTP/1.0 and HTTP/1.1"),
        Rejection(name: "target over its limit", text: "GET /\(String(repeating: "a", count: 100)) HTTP/1.1\r\n\(host)\r\n", status: 414, reason: "longer than 64 bytes",
                  limits: .init(maxTargetBytes: 64)),
        Rejection(name: "endless target", text: "GET /\(String(repeating: "a", count: 300))", status: 414, reason: "longer than 64 bytes",
                  limits: .init(maxTargetBytes: 64)),
        Rejection(name: "fragment", text: "GET /a#b HTTP/1.1\r\n\r\n", status: 400, reason: "fragments"),
        Rejection(name: "raw non-ASCII path", text: "GET /caf\u{e9} HTTP/1.1\r\n\r\n", status: 400, reason: "percent-encode"),
        Rejection(name: "bad escape", text: "GET /a%G1 HTTP/1.1\r\n\r\n", status: 400, reason: "two hexadecimal digits"),
        Rejection(name: "truncated escape", text: "GET /a%4 HTTP/1.1\r\n\r\n", status: 400, reason: "two hexadecimal digits"),
        Rejection(name: "encoded NUL", text: "GET /a%00b HTTP/1.1\r\n\r\n", status: 400, reason: "NUL"),
        Rejection(name: "encoded invalid UTF-8", text: "GET /%FF HTTP/1.1\r\n\r\n", status: 400, reason: "UTF-8"),
        Rejection(name: "bad query escape", text: "GET /a?x=%zz HTTP/1.1\r\n\r\n", status: 400, reason: "query"),
        Rejection(name: "dot-dot segment", text: "GET /a/../b HTTP/1.1\r\n\r\n", status: 400, reason: "'..' segment"),
        Rejection(name: "encoded dot-dot segment", text: "GET /a/%2E%2E/b HTTP/1.1\r\n\r\n", status: 400, reason: "'..' segment"),
        // Line endings.
        Rejection(name: "bare LF", text: "GET / HTTP/1.1\n\n", status: 400, reason: "CR LF"),
        Rejection(name: "bare LF in headers", text: "GET / HTTP/1.1\r\nHost: a\n\r\n", status: 400, reason: "CR LF"),
        Rejection(name: "bare CR", text: "GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", status: 400, reason: "CR that is not followed by LF"),
        // Header lines.
        Rejection(name: "obs-fold", text: "GET / HTTP/1.1\r\n\(host)X: a\r\n b\r\n\r\n", status: 400, reason: "line folding"),
        Rejection(name: "whitespace before colon", text: "GET / HTTP/1.1\r\nHost : a\r\n\r\n", status: 400, reason: "before the colon"),
        Rejection(name: "no colon", text: "GET / HTTP/1.1\r\n\(host)Nonsense\r\n\r\n", status: 400, reason: "no colon"),
        Rejection(name: "empty name", text: "GET / HTTP/1.1\r\n\(host): v\r\n\r\n", status: 400, reason: "empty name"),
        Rejection(name: "name not a token", text: "GET / HTTP/1.1\r\n\(host)X[1]: v\r\n\r\n", status: 400, reason: "names are tokens"),
        Rejection(name: "NUL in value", text: "GET / HTTP/1.1\r\n\(host)X: a\u{0}b\r\n\r\n", status: 400, reason: "0x00 (NUL)"),
        Rejection(name: "DEL in value", text: "GET / HTTP/1.1\r\n\(host)X: a\u{7F}\r\n\r\n", status: 400, reason: "control byte"),
        // Host.
        Rejection(name: "HTTP/1.1 without Host", text: "GET / HTTP/1.1\r\n\r\n", status: 400, reason: "must have a Host"),
        Rejection(name: "two Host headers", text: "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400, reason: "more than one Host"),
        Rejection(name: "Host list", text: "GET / HTTP/1.1\r\nHost: a, b\r\n\r\n", status: 400, reason: "Host header is not"),
        // Body framing.
        Rejection(name: "TE with CL", text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", status: 400, reason: "both Transfer-Encoding and Content-Length"),
        Rejection(name: "CL with TE", text: "POST / HTTP/1.1\r\n\(host)Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", status: 400, reason: "both"),
        Rejection(name: "duplicate CL", text: "POST / HTTP/1.1\r\n\(host)Content-Length: 3\r\nContent-Length: 3\r\n\r\n", status: 400, reason: "more than one Content-Length"),
        Rejection(name: "CL list", text: "POST / HTTP/1.1\r\n\(host)Content-Length: 3, 3\r\n\r\n", status: 400, reason: "decimal number"),
        Rejection(name: "signed CL", text: "POST / HTTP/1.1\r\n\(host)Content-Length: +3\r\n\r\n", status: 400, reason: "decimal number"),
        Rejection(name: "hex CL", text: "POST / HTTP/1.1\r\n\(host)Content-Length: 0x3\r\n\r\n", status: 400, reason: "decimal number"),
        Rejection(name: "empty CL", text: "POST / HTTP/1.1\r\n\(host)Content-Length:\r\n\r\n", status: 400, reason: "decimal number"),
        Rejection(name: "gzip only", text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: gzip\r\n\r\n", status: 400, reason: "final transfer coding"),
        Rejection(name: "gzip then chunked", text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: gzip, chunked\r\n\r\n", status: 501, reason: "only the chunked"),
        Rejection(name: "chunked twice", text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", status: 400, reason: "more than once"),
        Rejection(name: "TE in HTTP/1.0", text: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", status: 400, reason: "HTTP/1.0"),
        Rejection(name: "unknown expectation", text: "POST / HTTP/1.1\r\n\(host)Expect: something\r\nContent-Length: 1\r\n\r\n", status: 417, reason: "100-continue"),
        // Chunked bodies.
        Rejection(name: "chunk size not hex", text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\nxyz\r\n", status: 400, reason: "hexadecimal"),
        Rejection(name: "chunk size with junk", text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n5 x\r\n", status: 400, reason: "instead of ';'"),
        Rejection(name: "negative chunk size", text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n-5\r\n", status: 400, reason: "hexadecimal"),
        Rejection(name: "chunk longer than its size", text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", status: 400, reason: "longer than its size"),
        Rejection(name: "bad chunk extension", text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n1;=x\r\n", status: 400, reason: "no name"),
        Rejection(name: "unterminated quoted extension", text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n1;a=\"x\r\n", status: 400, reason: "quoted string"),
        Rejection(name: "bad trailer", text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n0\r\nBad Trailer: x\r\n\r\n", status: 400, reason: "names are tokens"),
        // Limits.
        Rejection(name: "head over the limit", text: "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "a", count: 100),
                  status: 431, reason: "longer than 64 bytes", limits: .init(maxHeadBytes: 64)),
        Rejection(name: "request line over the limit", text: "GET /" + String(repeating: "a", count: 100),
                  status: 431, reason: "longer than 64 bytes", limits: .init(maxHeadBytes: 64)),
        Rejection(name: "head one byte over", text: "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "p", count: 33) + "\r\n\r\n",
                  status: 431, reason: "longer than 64 bytes", limits: .init(maxHeadBytes: 64)),
        Rejection(name: "endless empty lines", text: String(repeating: "\r\n", count: 40),
                  status: 431, reason: "longer than 64 bytes", limits: .init(maxHeadBytes: 64)),
        Rejection(name: "too many headers", text: "GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n",
                  status: 431, reason: "more than 3 header fields", limits: .init(maxHeaderCount: 3)),
        Rejection(name: "Content-Length over the limit", text: "POST / HTTP/1.1\r\n\(host)Content-Length: 11\r\n\r\n",
                  status: 413, reason: "larger than 10 bytes", limits: .init(maxBodyBytes: 10)),
        Rejection(name: "huge Content-Length", text: "POST / HTTP/1.1\r\n\(host)Content-Length: 99999999999999999999999999999\r\n\r\n",
                  status: 413, reason: "larger than"),
        Rejection(name: "chunk over the limit", text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\nB\r\n",
                  status: 413, reason: "chunked body is larger than 10 bytes", limits: .init(maxBodyBytes: 10)),
        Rejection(name: "chunks summing over the limit", text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n6\r\naaaaaa\r\n6\r\n",
                  status: 413, reason: "chunked body is larger", limits: .init(maxBodyBytes: 10)),
        Rejection(name: "huge chunk size", text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFFFFFF\r\n",
                  status: 413, reason: "chunked body is larger"),
        Rejection(name: "chunk-size line over the limit", text: "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "a", count: 40),
                  status: 400, reason: "chunk-size line is longer than 16 bytes", limits: .init(maxChunkLineBytes: 16)),
        Rejection(name: "trailers over the limit", text: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: " + String(repeating: "a", count: 200),
                  status: 431, reason: "trailer section", limits: .init(maxHeadBytes: 128)),
    ]

    @Test(arguments: cases)
    func refusesAtEverySplit(_ rejection: Rejection) {
        for chunks in everySplit(of: rejection.text) {
            let outcome = parse(chunks: chunks, limits: rejection.limits)
            #expect(outcome.error?.status.code == rejection.status, "\(rejection.name): \(String(describing: outcome.error))")
            #expect(outcome.error?.reason.contains(rejection.reason) == true, "\(rejection.name): \(String(describing: outcome.error))")
            // A refused head never reaches anyone; a body error may follow an accepted head.
            if rejection.status == 431 || !rejection.text.contains("\r\n\r\n") {
                #expect(outcome.requests.isEmpty || rejection.name.contains("trailer"), "\(rejection.name)")
            }
        }
    }

    @Test func headLimitIsEnforcedBeforeTheLineEnds() throws {
        // A request line that never ends: refused at its 64th byte (with CR LF it could only
        // be longer than 64) without waiting for the line to end.
        var parser = HTTPRequestParser(limits: .init(maxHeadBytes: 64))
        parser.append(Array(("GET /" + String(repeating: "a", count: 58)).utf8))
        #expect(try parser.nextEvent() == nil)
        parser.append(Array("a".utf8))
        #expect(throws: HTTPParseError.self) { try parser.nextEvent() }
    }

    @Test func bodyLimitIsDecidedFromContentLengthBeforeAnyBodyByte() {
        var parser = HTTPRequestParser(limits: .init(maxBodyBytes: 10))
        parser.append(Array("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n".utf8))
        #expect(throws: HTTPParseError(.contentTooLarge, "the body is larger than 10 bytes")) { try parser.nextEvent() }
    }

    @Test func aFailedParserStaysFailed() {
        var parser = HTTPRequestParser()
        parser.append(Array("GET / HTTP/1.1\n".utf8))
        let first = #expect(throws: HTTPParseError.self) { try parser.nextEvent() }
        parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        let second = #expect(throws: HTTPParseError.self) { try parser.nextEvent() }
        #expect(first == second)
    }

    @Test func reasonsNeverRepeatRequestText() {
        let secret = "4111111111111111"
        let texts = [
            "GET /\(secret)\u{1} HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nX-Card: \(secret)\u{0}\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\n\(secret) : x\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \(secret)x\r\n\r\n",
        ]
        for text in texts {
            let outcome = parse(chunks: [Array(text.utf8)[...]])
            #expect(outcome.error != nil)
            #expect(outcome.error?.reason.contains(secret) == false)
        }
    }
}
