import Foundation
@testable import PayPanelHTTP
import TestSupport
import Testing

/// The one HTTP client on loopback servers on port 0, stopped by each test (no network): the
/// request it writes, the answers it reads and bounds, and what its failures say.
@Suite struct HTTPClientTests {
    let client = HTTPClient(userAgent: "paypanel-test")

    func address(_ port: Int, _ target: String) -> HTTPClientURL { HTTPClientURL(isSecure: false, host: "127.0.0.1", port: port, target: target) }
    func soon() -> ContinuousClock.Instant { .now.advanced(by: .seconds(10)) }

    @Test func theRequestHeadIsWrittenInOneFormAndHeadersThatWouldSplitItAreDropped() {
        let post = HTTPClientRequest(
            "POST", HTTPClientURL(isSecure: false, host: "::1", port: 8080, target: "/v1/x?a=1"),
            headers: [("Content-Type", "application/json"), ("X-Evil", "a\r\nInjected: yes"), ("X\nBad", "b")], body: Array("{}".utf8))
        #expect(String(decoding: post.encoded(userAgent: "ua/1"), as: UTF8.self)
            == "POST /v1/x?a=1 HTTP/1.1\r\nHost: [::1]:8080\r\nUser-Agent: ua/1\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}")
        let get = HTTPClientRequest("GET", HTTPClientURL(isSecure: false, host: "example.test", port: 80, target: "/a.png"))
        #expect(String(decoding: get.encoded(userAgent: "ua/1"), as: UTF8.self)
            == "GET /a.png HTTP/1.1\r\nHost: example.test\r\nUser-Agent: ua/1\r\nConnection: close\r\n\r\n")
    }

    @Test func aURLIsTakenApartOnlyWhenItCanBeSentSafely() {
        #expect(HTTPClientURL(string: "http://[::1]:9/p?q=1") == HTTPClientURL(isSecure: false, host: "::1", port: 9, target: "/p?q=1"))
        #expect(HTTPClientURL(string: "HTTPS://h")?.description == "https://h/")
        #expect(HTTPClientURL(string: "ftp://h/") == nil)
        #expect(HTTPClientURL(string: "http://user:secret@h/") == nil)
        #expect(HTTPClientURL(string: "http://h:0/") == nil)
    }

    @Test func anAnswerOfAnyStatusIsReadWithItsBody() throws {
        let server = try LoopbackHTTPServer(routes: ["/missing": .answer(404, body: Array(#"{"error":{}}"#.utf8), contentType: "application/json")])
        defer { server.stop() }
        let response = try client.send(HTTPClientRequest("GET", address(server.port, "/missing")), maximumBodyBytes: 100, deadline: soon()).get()
        #expect(response.status == 404 && response.body == Array(#"{"error":{}}"#.utf8) && response.contentType == "application/json")
        // With `.onlyOK` the head of a non-200 is the whole answer.
        let head = try client.send(HTTPClientRequest("GET", address(server.port, "/missing")), maximumBodyBytes: 100, bodies: .onlyOK, deadline: soon()).get()
        #expect(head.status == 404 && head.body.isEmpty)
    }

    @Test func aRedirectIsReturnedForTheCallerToJudgeNotFollowed() throws {
        let server = try LoopbackHTTPServer(routes: ["/moved": .redirect(302, location: "http://127.0.0.1:1/elsewhere")])
        defer { server.stop() }
        let response = try client.send(HTTPClientRequest("GET", address(server.port, "/moved")), maximumBodyBytes: 100, deadline: soon()).get()
        #expect(response.status == 302 && response.header("location") == "http://127.0.0.1:1/elsewhere")
        #expect(server.receivedTargets == ["/moved"])
    }

    @Test func aBodyAboveTheLimitIsRefusedWhetherAnnouncedOrStreamed() throws {
        let server = try LoopbackHTTPServer(routes: [
            "/announced": .announce(10_000_000),
            "/chunked": .ok(body: [UInt8](repeating: 7, count: 5000), contentType: "image/png", chunkSize: 500),
        ])
        defer { server.stop() }
        for target in ["/announced", "/chunked"] {
            let result = client.send(HTTPClientRequest("GET", address(server.port, target)), maximumBodyBytes: 1000, deadline: soon())
            #expect(result.failure?.kind == .tooLarge, "\(target)")
            #expect(result.failure?.message.contains("1000-byte limit") == true, "\(target)")
        }
    }

    @Test func aRefusedConnectionSaysTheRequestWasNeverSent() async {
        let result = await client.send(HTTPClientRequest("POST", address(1, "/"), body: [1]), maximumBodyBytes: 100, deadline: soon())
        #expect(result.failure?.kind == .unreachable)
        #expect(result.failure?.requestSent == false)
        #expect(result.failure?.message.contains("could not connect to 127.0.0.1:1") == true)
    }

    @Test func aServerThatNeverAnswersEndsAtTheDeadlineAfterTheRequestWasSent() throws {
        let server = try LoopbackHTTPServer(routes: ["/stall": .stall])
        defer { server.stop() }
        let started = ContinuousClock.now
        let result = client.send(HTTPClientRequest("GET", address(server.port, "/stall")), maximumBodyBytes: 100, deadline: .now.advanced(by: .milliseconds(300)))
        #expect(result.failure?.kind == .timedOut)
        #expect(result.failure?.requestSent == true)
        #expect(started.duration(to: .now) < .seconds(10))
    }

    @Test func httpsWithoutATransportIsRefusedBeforeAnythingIsSent() {
        let result = client.send(HTTPClientRequest("GET", HTTPClientURL(isSecure: true, host: "127.0.0.1", port: 1, target: "/")), maximumBodyBytes: 100, deadline: soon())
        #expect(result.failure?.kind == .unsupported && result.failure?.requestSent == false)
    }

    @Test func theURLSessionPathAnswersARedirectItWasToldNotToFollow() async throws {
        let server = try LoopbackHTTPServer(routes: ["/moved": .redirect(302, location: "https://127.0.0.1:1/elsewhere")])
        defer { server.stop() }
        let session = BoundedURLSession(maximumRedirects: 0, redirectIsTheAnswer: true)
        let viaSession = HTTPClient(userAgent: "paypanel-test", secure: .sessionForEveryRequest(session))
        let result = await viaSession.send(HTTPClientRequest("POST", address(server.port, "/moved"), body: []), maximumBodyBytes: 0, bodies: .none, deadline: soon())
        #expect(result.success?.status == 302)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }

    var success: Success? {
        if case .success(let success) = self { return success }
        return nil
    }
}
